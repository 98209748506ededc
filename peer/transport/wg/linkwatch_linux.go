package wg

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// linkEvents opens a netlink socket that receives a message whenever an
// address or a route of this host changes (IPv4 or IPv6). next blocks until
// the next message (true) or until closeFn closed the socket (false).
func linkEvents() (next func() bool, closeFn func(), err error) {
	fd, err := unix.Socket(unix.AF_NETLINK, unix.SOCK_RAW|unix.SOCK_CLOEXEC|unix.SOCK_NONBLOCK, unix.NETLINK_ROUTE)
	if err != nil {
		return nil, nil, err
	}
	sa := &unix.SockaddrNetlink{Family: unix.AF_NETLINK, Groups: unix.RTMGRP_IPV4_IFADDR |
		unix.RTMGRP_IPV6_IFADDR | unix.RTMGRP_IPV4_ROUTE | unix.RTMGRP_IPV6_ROUTE}
	if err := unix.Bind(fd, sa); err != nil {
		unix.Close(fd)
		return nil, nil, err
	}
	// Through an os.File the read waits in the runtime's poller, so closing
	// the file wakes it.
	f := os.NewFile(uintptr(fd), "netlink-route")
	buf := make([]byte, 32<<10)
	next = func() bool {
		for {
			n, err := f.Read(buf)
			switch {
			case errors.Is(err, unix.ENOBUFS):
				return true // messages were dropped: something changed
			case err != nil:
				return false
			case n > 0:
				return true
			}
		}
	}
	return next, func() { f.Close() }, nil
}
