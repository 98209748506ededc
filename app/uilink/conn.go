package uilink

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
)

// MaxLine bounds one message: the longest is a notification's title and
// body (a few hundred characters) or an error text. A longer line is a
// broken peer of the line, and ends it.
const MaxLine = 64 << 10

// ErrTooLong is returned by Recv for a line over MaxLine.
var ErrTooLong = errors.New("uilink: message too long")

// Conn is one end of the line. Send is safe for concurrent use; Recv is
// for one reader.
type Conn struct {
	c  io.ReadWriteCloser
	r  *bufio.Reader
	mu sync.Mutex // guards writes
}

// NewConn wraps c: a unix socket, or a pair of pipes.
func NewConn(c io.ReadWriteCloser) *Conn {
	return &Conn{c: c, r: bufio.NewReaderSize(c, 4096)}
}

// Send writes m as one line.
func (c *Conn) Send(m Msg) error {
	b, err := json.Marshal(m)
	if err != nil {
		return fmt.Errorf("uilink: %w", err)
	}
	b = append(b, '\n')
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, err := c.c.Write(b); err != nil {
		return fmt.Errorf("uilink: send %s: %w", m.Op, err)
	}
	return nil
}

// Recv reads the next message. It returns io.EOF when the other end
// closed the line.
func (c *Conn) Recv() (Msg, error) {
	var line []byte
	for {
		part, err := c.r.ReadSlice('\n')
		line = append(line, part...)
		if len(line) > MaxLine {
			return Msg{}, ErrTooLong
		}
		if err == nil {
			break
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if errors.Is(err, io.EOF) && len(line) > 0 {
			return Msg{}, io.ErrUnexpectedEOF
		}
		return Msg{}, err
	}
	var m Msg
	if err := json.Unmarshal(line, &m); err != nil {
		return Msg{}, fmt.Errorf("uilink: bad message: %w", err)
	}
	return m, nil
}

// Close closes the line; the other end reads io.EOF.
func (c *Conn) Close() error { return c.c.Close() }
