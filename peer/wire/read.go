package wire

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"unicode/utf8"
)

// MaxLine is the longest line, not counting its "\n" (docs/protocol/framing.md).
const MaxLine = 1 << 20

// Reader buffer sizes: it starts small (most sessions carry short lines) and
// grows to hold whole chunk lines (in one step for a long line), so a line
// is never assembled from fragments and one read can bring in more than a
// line.
const (
	readBufMin = 64 << 10
	// bigLine: a line this long and still unfinished takes the reader
	// straight to its large buffer (chunk lines are 700 KB), where shorter
	// ones double the small one.
	bigLine = 32 << 10
	// readSlack bounds how far past the longest legal line one read may go,
	// so an endless line is refused after about MaxLine bytes.
	readSlack = 64 << 10
)

// ReadBufMax is the size of the buffer a Reader grows to when a line
// outgrows its first one (see Reader.SetGrow).
const ReadBufMax = 2 << 20

// Reader reads lines with the 1 MiB limit. A line over the limit is refused
// as soon as the limit is passed, without reading the rest of it.
type Reader struct {
	rd    io.Reader
	grow  func() []byte // supplies the large buffer; nil: make one
	big   bool          // buf came from grow
	small []byte        // the first buffer, kept while buf is the large one
	buf   []byte
	r, w  int   // buf[r:w] is read but not yet returned
	scan  int   // buf[r:r+scan] holds no '\n'
	err   error // a read error, returned once the buffered lines are consumed
	zeros int   // reads in a row that returned nothing
}

// NewReader reads lines from r.
func NewReader(r io.Reader) *Reader {
	return &Reader{rd: r, buf: make([]byte, readBufMin)}
}

// SetGrow has the reader take its large buffer from get (which returns
// ReadBufMax bytes or more) instead of making one when a long line first
// outgrows the small buffer: a buffer kept by a pool is already faulted in,
// while a fresh 2 MiB costs 512 page faults, the first chunk line of a
// session took 10-17 ms to read here instead of 1. TakeBuffer or Shrink
// hands it back. get may wait (for a node's budget of such buffers); when
// it returns nil the reader fails with ErrNoBuffer.
func (r *Reader) SetGrow(get func() []byte) { r.grow = get }

// ErrNoBuffer is returned when SetGrow's function supplied no buffer.
var ErrNoBuffer = errors.New("wire: no buffer for a long line")

// Big reports whether the reader holds the buffer SetGrow's function
// supplied.
func (r *Reader) Big() bool { return r.big }

// Shrink moves the reader back to its small buffer and returns the large
// one SetGrow's function supplied, when it holds one and nothing is
// buffered (no partial line): the caller gives it back to whoever lends
// them. Otherwise it returns nil and changes nothing.
func (r *Reader) Shrink() []byte {
	if !r.big || r.r != r.w {
		return nil
	}
	if r.small == nil {
		r.small = make([]byte, readBufMin)
	}
	b := r.buf
	r.buf, r.small, r.big, r.r, r.w, r.scan = r.small, nil, false, 0, 0, 0
	return b
}

// TakeBuffer returns the buffer SetGrow's function supplied, if the reader
// took one, and leaves the reader without a buffer: it must not be used
// afterwards.
func (r *Reader) TakeBuffer() []byte {
	if !r.big {
		return nil
	}
	b := r.buf
	r.buf, r.big, r.r, r.w, r.scan = nil, false, 0, 0, 0
	return b
}

// Buffered reports how many bytes can be read without blocking.
func (r *Reader) Buffered() int { return r.w - r.r }

// ReadLine returns the next line that is not only white space, without its
// "\n", as a slice the caller owns. It returns ErrTooLong for a line over
// MaxLine, a *DecodeError (bad_frame) for invalid UTF-8, and io.EOF at the
// end of the stream (an unterminated last line is dropped).
func (r *Reader) ReadLine() ([]byte, error) {
	line, err := r.ReadLineTemp()
	if err != nil {
		return nil, err
	}
	return bytes.Clone(line), nil
}

// ReadLineTemp is ReadLine without the copy: the line is valid only until
// the next call (for a caller that decodes it at once; see DecodeTemp).
func (r *Reader) ReadLineTemp() ([]byte, error) {
	line, err := r.ReadLineUnchecked()
	if err != nil {
		return nil, err
	}
	if !utf8.Valid(line) {
		return nil, badFrame("invalid UTF-8")
	}
	return line, nil
}

// ReadLineUnchecked is ReadLineTemp without the UTF-8 check, for a caller
// that hands every line to Decode or DecodeTemp at once: they refuse
// invalid UTF-8 themselves (bad_frame, "invalid UTF-8"), and the check
// would read a chunk line's megabyte once more.
func (r *Reader) ReadLineUnchecked() ([]byte, error) {
	for {
		line, err := r.readRaw()
		if err != nil {
			return nil, err
		}
		if !isBlank(line) {
			return line, nil
		}
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

// readRaw returns the next line (without "\n") as a slice of r.buf.
func (r *Reader) readRaw() ([]byte, error) {
	for {
		if i := bytes.IndexByte(r.buf[r.r+r.scan:r.w], '\n'); i >= 0 {
			end := r.r + r.scan + i
			line := r.buf[r.r:end]
			r.r, r.scan = end+1, 0
			if len(line) > MaxLine {
				return nil, ErrTooLong
			}
			return line, nil
		}
		r.scan = r.w - r.r
		if r.scan > MaxLine {
			// MaxLine+1 bytes and no newline yet: over the limit, whatever follows.
			return nil, ErrTooLong
		}
		if err := r.err; err != nil {
			// An unterminated last line is dropped.
			r.err = nil
			return nil, err
		}
		r.fill()
	}
}

// fill reads once into the free end of buf, making room first.
func (r *Reader) fill() {
	if len(r.buf)-r.w < readSlack {
		if r.r > 0 {
			copy(r.buf, r.buf[r.r:r.w])
			r.w -= r.r
			r.r = 0
		}
		if len(r.buf)-r.w < readSlack && len(r.buf) < ReadBufMax {
			var nb []byte
			if r.grow != nil && r.w >= bigLine {
				if nb = r.grow(); nb == nil {
					r.err = ErrNoBuffer
					return
				}
			}
			switch {
			case len(nb) >= ReadBufMax:
				r.big = true
				if len(r.buf) == readBufMin {
					r.small = r.buf
				}
			case r.w >= bigLine:
				nb = make([]byte, ReadBufMax)
			default:
				nb = make([]byte, min(2*len(r.buf), ReadBufMax))
			}
			copy(nb, r.buf[:r.w])
			r.buf = nb
		}
	}
	// Read no further than a legal line and some slack past the current
	// line's start.
	end := min(len(r.buf), r.r+MaxLine+1+readSlack)
	n, err := r.rd.Read(r.buf[r.w:end])
	if n < 0 || n > end-r.w {
		panic("wire: reader returned an invalid count")
	}
	r.w += n
	switch {
	case err != nil:
		r.err = err
	case n > 0:
		r.zeros = 0
	default:
		if r.zeros++; r.zeros >= 100 {
			r.err = io.ErrNoProgress
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
