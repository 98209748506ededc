package instance

import (
	"bufio"
	"fmt"
	"net"
)

// askRaw sends req and returns an error holding any answer but "ok".
func askRaw(addr, req string) error {
	c, err := net.Dial("unix", addr)
	if err != nil {
		return err
	}
	defer c.Close()
	if _, err := c.Write([]byte(req)); err != nil {
		return err
	}
	line, err := bufio.NewReader(c).ReadString('\n')
	if err != nil {
		return err
	}
	if line != "ok\n" {
		return fmt.Errorf("answer %q", line)
	}
	return nil
}
