package wire

import (
	"bufio"
	"errors"
	"io"
	"unicode/utf8"
)

// MaxLine is the longest line, not counting its "\n" (SPEC §2).
const MaxLine = 1 << 20

// Reader reads lines with the 1 MiB limit. A line over the limit is refused
// as soon as the limit is passed, without reading the rest of it.
type Reader struct {
	br  *bufio.Reader
	buf []byte
}

// NewReader reads lines from r.
func NewReader(r io.Reader) *Reader {
	return &Reader{br: bufio.NewReaderSize(r, 64<<10)}
}

// Buffered reports how many bytes can be read without blocking.
func (r *Reader) Buffered() int { return r.br.Buffered() }

// ReadLine returns the next line that is not only white space, without its
// "\n", as a slice the caller owns. It returns ErrTooLong for a line over
// MaxLine, a *DecodeError (bad_frame) for invalid UTF-8, and io.EOF at the
// end of the stream (an unterminated last line is dropped).
func (r *Reader) ReadLine() ([]byte, error) {
	for {
		line, err := r.readRaw()
		if err != nil {
			return nil, err
		}
		if isBlank(line) {
			continue
		}
		if !utf8.Valid(line) {
			return nil, badFrame("invalid UTF-8")
		}
		return line, nil
	}
}

// isBlank reports whether b is only JSON white space. (firstNonSpace cannot
// tell: it returns 0 for a line that starts with a NUL byte too.)
func isBlank(b []byte) bool {
	for _, c := range b {
		if c != ' ' && c != '\t' && c != '\r' && c != '\n' {
			return false
		}
	}
	return true
}

func (r *Reader) readRaw() ([]byte, error) {
	r.buf = r.buf[:0]
	for {
		frag, err := r.br.ReadSlice('\n')
		switch {
		case err == nil:
			n := len(r.buf) + len(frag) - 1
			if n > MaxLine {
				return nil, ErrTooLong
			}
			out := make([]byte, n)
			copy(out, r.buf)
			copy(out[len(r.buf):], frag[:len(frag)-1])
			return out, nil
		case errors.Is(err, bufio.ErrBufferFull):
			if len(r.buf)+len(frag) > MaxLine+1 {
				return nil, ErrTooLong
			}
			r.buf = append(r.buf, frag...)
		case errors.Is(err, io.EOF):
			if len(r.buf)+len(frag) > MaxLine {
				return nil, ErrTooLong
			}
			return nil, io.EOF
		default:
			return nil, err
		}
	}
}

// Writer writes lines through a buffer; call Flush to send them.
type Writer struct {
	bw *bufio.Writer
}

// NewWriter writes lines to w.
func NewWriter(w io.Writer) *Writer { return &Writer{bw: bufio.NewWriterSize(w, 64<<10)} }

// WriteLine buffers b and a "\n". b must not contain a newline.
func (w *Writer) WriteLine(b []byte) error {
	if len(b) > MaxLine {
		return ErrTooLong
	}
	if _, err := w.bw.Write(b); err != nil {
		return err
	}
	return w.bw.WriteByte('\n')
}

// Flush sends what is buffered.
func (w *Writer) Flush() error { return w.bw.Flush() }

// WriteFrame encodes f and writes it.
func (w *Writer) WriteFrame(f Frame) error {
	b, err := Encode(f)
	if err != nil {
		return err
	}
	return w.WriteLine(b)
}
