package render

import (
	"strings"
	"time"

	"github.com/awp-tray/awp-tray/internal/visible"
	"github.com/awp-tray/awp-tray/peer/wire"
)

// RowKind says how a Row is drawn.
type RowKind uint8

// The row kinds.
const (
	RowHeader  RowKind = iota // sender, time, delivery mark
	RowTitle                  // a part's summary line (bold)
	RowText                   // prose
	RowMono                   // code, JSON, command output: monospace, in a box
	RowField                  // "label: value"
	RowBlob                   // a file: name, size, progress, Save…
	RowState                  // a state change, on one line
	RowNotice                 // a notice (italic)
	RowGap                    // space between entries
	RowCaption                // a code box's first row: its language, path or mime
)

// Row is one line of the thread view. Rows all have one height, set by
// the view to its line height, so a paragraph reads at normal line
// spacing and a list of any length scrolls at the cost of a screenful.
type Row struct {
	Kind  RowKind
	Entry int    // index of the entry the row belongs to
	Text  string // what the row shows (for RowBlob: name and size)
	Dir   string // the entry's direction, "in" or "out"
	From  string // the entry's sender (blobs are keyed by sender and ref)
	Mine  bool   // I sent it (not a line mirrored to me)
	Blob  *Blob  // set for RowBlob
}

// groupGap is how long after a sender's line their next one still joins
// it under one header.
const groupGap = 5 * time.Minute

// Options tune Rows.
type Options struct {
	// Width is the number of runes a row holds before wrapping; 0 means
	// DefaultWidth.
	Width int
	// Name gives a key's display name; nil shows short keys.
	Name func(key string) string
	// Now is the reference for "today" in times; zero means time.Now().
	Now time.Time
	// Loc is the time zone for times; nil means time.Local.
	Loc *time.Location
	// Subject is the thread's, shown by the window above the rows: a
	// line under the same subject does not repeat it.
	Subject string
}

// DefaultWidth is the row width Rows uses when Options.Width is 0.
const DefaultWidth = 100

// Delivery marks shown after the time of an outbound line.
const (
	MarkAcked   = "✓" // the peer stored it
	MarkPending = "…" // queued, not yet acknowledged
	MarkMirror  = "⇄" // a mirrored line
)

// Rows flattens entries into rows, in order. Hidden entries give no rows.
func Rows(entries []Entry, o Options) []Row {
	return AppendRows(make([]Row, 0, len(entries)*3), entries, 0, o)
}

// AppendRows appends the rows of entries[start:] to rows, which holds the
// rows of entries[:start]: a thread view adds new lines without
// flattening the whole thread again.
func AppendRows(rows []Row, entries []Entry, start int, o Options) []Row {
	if o.Width <= 0 {
		o.Width = DefaultWidth
	}
	if o.Name == nil {
		o.Name = ShortKey
	}
	if o.Now.IsZero() {
		o.Now = time.Now()
	}
	prev := -1 // the entry shown last, for grouping
	for i := start - 1; i >= 0; i-- {
		if !entries[i].Hidden {
			prev = i
			break
		}
	}
	b := &rowBuilder{rows: rows, o: o}
	for i := start; i < len(entries); i++ {
		e := &entries[i]
		if e.Hidden {
			continue
		}
		b.i, b.e, b.mine = i, e, e.Dir == "out" && e.MirroredFrom == ""
		who := o.Name(e.From)
		when := Clock(e.Time, o.Now, o.Loc)

		// A state line is one row: who, when, the new state and the note.
		if e.Type == wire.TypeState && len(e.Parts) == 1 {
			b.stateRow(who, when)
			prev = i
			continue
		}

		joined := joins(entries, prev, i)
		if !joined {
			b.header(who, when)
		}
		prev = i
		if e.Subject != "" && e.Subject != o.Subject {
			b.addBlocks(RowTitle, "Subject: "+e.Subject, "")
		}
		for _, p := range e.Parts {
			b.part(p)
		}
		if joined && e.Dir == "out" && !e.Acked {
			// The group's header marks its first line only.
			b.add(RowNotice, MarkPending+" not delivered yet", nil)
		}
	}
	return b.rows
}

// rowBuilder appends the rows of one entry at a time (AppendRows).
type rowBuilder struct {
	rows []Row
	o    Options
	i    int    // the entry being flattened
	e    *Entry // entries[i]
	mine bool   // e is this node's own line
}

func (b *rowBuilder) add(k RowKind, text string, bl *Blob) {
	b.rows = append(b.rows, Row{Kind: k, Entry: b.i, Text: text, Dir: b.e.Dir, From: b.e.From, Mine: b.mine, Blob: bl})
}

// addBlocks adds text wrapped to the width, as rows of kind k, under a
// caption when there is one.
func (b *rowBuilder) addBlocks(k RowKind, text, caption string) {
	if caption != "" {
		if n := len(b.rows); n > 0 && b.rows[n-1].Kind == RowMono {
			b.add(RowGap, "", nil) // two boxes in a row stay two
		}
		b.add(RowCaption, visible.Cut(caption, b.o.Width), nil)
	}
	for _, l := range Wrap(text, b.o.Width, k == RowMono) {
		b.add(k, l, nil)
	}
}

// stateRow adds a state line's one row: who, when, the new state and the
// note.
func (b *rowBuilder) stateRow(who, when string) {
	e := b.e
	if len(b.rows) > 0 {
		b.add(RowGap, "", nil)
	}
	s := when + "  " + who + " is now " + e.Parts[0].Title
	if b.mine {
		s = when + "  you are now " + e.Parts[0].Title
	}
	if e.Parts[0].Text != "" {
		s += " — " + e.Parts[0].Text
	}
	b.addBlocks(RowState, s, "")
}

// header adds the header of a group of lines: who, when and the marks.
func (b *rowBuilder) header(who, when string) {
	e := b.e
	if len(b.rows) > 0 {
		b.add(RowGap, "", nil)
	}
	if b.mine {
		who = "You"
	}
	h := who + "  " + when
	if e.Dir == "out" {
		h += "  " + deliveryMark(e.Acked)
	}
	if e.MirroredFrom != "" {
		h += "  " + MarkMirror
	}
	if e.Re != "" {
		h += "  (reply)"
	}
	b.add(RowHeader, visible.Cut(h, b.o.Width), nil)
}

// part adds the rows of one part of the entry.
func (b *rowBuilder) part(p Part) {
	switch p.Kind {
	case PartText:
		b.addBlocks(RowText, p.Text, "")
		return
	case PartBlob:
		b.add(RowBlob, blobLabel(p.Blob), p.Blob)
		return
	case PartNotice:
		b.addBlocks(RowNotice, p.Title, "")
		if p.Text != "" {
			b.addBlocks(RowMono, p.Text, "")
		}
		return
	case PartCode, PartData:
		// The box's caption says the language (or path, or mime).
		b.addBlocks(RowMono, p.Text, p.Title)
		return
	}
	if p.Title != "" {
		b.addBlocks(RowTitle, p.Title, "")
	}
	for _, f := range p.Fields {
		b.addBlocks(RowField, f.Label+": "+f.Value, "")
	}
	if p.Text != "" {
		if p.Mono {
			b.addBlocks(RowMono, p.Text, "")
		} else {
			b.addBlocks(RowText, p.Text, "")
		}
	}
}

// joins reports whether entry i goes under the header of entry prev: the
// same sender, the same way, a message after a message, within groupGap.
func joins(entries []Entry, prev, i int) bool {
	if prev < 0 {
		return false
	}
	p, e := &entries[prev], &entries[i]
	if p.Type == wire.TypeState || p.From != e.From || p.Dir != e.Dir || p.MirroredFrom != e.MirroredFrom {
		return false
	}
	tp, err1 := time.Parse(time.RFC3339Nano, p.Time)
	te, err2 := time.Parse(time.RFC3339Nano, e.Time)
	if err1 != nil || err2 != nil {
		return false
	}
	d := te.Sub(tp)
	return d >= 0 && d <= groupGap
}

// deliveryMark is the mark after the time of my line.
func deliveryMark(acked bool) string {
	if acked {
		return MarkAcked
	}
	return MarkPending
}

// blobLabel is a blob row's text: name, size and mime type.
func blobLabel(b *Blob) string {
	if b == nil {
		return ""
	}
	name := b.Name
	if name == "" {
		name = b.Ref
	}
	s := Clip(name, MaxTitle) + "  " + Size(b.Size)
	if b.Mime != "" {
		s += "  " + Clip(b.Mime, MaxName)
	}
	return s
}

// Wrap splits text into lines of at most width runes. Prose (mono false)
// breaks at spaces where it can; monospace text keeps its spaces and
// breaks hard. Tabs become four spaces. An empty text gives one empty line
// so an empty part still shows.
func Wrap(text string, width int, mono bool) []string {
	if width <= 0 {
		width = DefaultWidth
	}
	text = strings.ReplaceAll(strings.ReplaceAll(text, "\r\n", "\n"), "\t", "    ")
	var out []string
	for _, line := range strings.Split(text, "\n") {
		for {
			// Rune width's offset: linear in the line, where counting the
			// rest each time was quadratic (a 1 MiB line).
			cut := byteIndex(line, width)
			if cut == len(line) {
				break
			}
			if !mono {
				if sp := strings.LastIndexByte(line[:cut+1], ' '); sp > 0 {
					out = append(out, line[:sp])
					line = line[sp+1:]
					continue
				}
			}
			out = append(out, line[:cut])
			line = line[cut:]
		}
		out = append(out, line)
	}
	return out
}

// byteIndex is the byte offset of rune n in s.
func byteIndex(s string, n int) int {
	i := 0
	for j := range s {
		if i == n {
			return j
		}
		i++
	}
	return len(s)
}
