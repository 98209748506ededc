package render

import (
	"fmt"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

var now = time.Date(2026, 9, 25, 18, 0, 0, 0, time.UTC)

func opts() Options {
	return Options{Width: 40, Now: now, Loc: time.UTC, Name: func(k string) string {
		switch k {
		case alice:
			return "alice"
		case bob:
			return "me"
		}
		return ShortKey(k)
	}}
}

func TestRowsMessage(t *testing.T) {
	entries := DecodeAll(nil)
	if len(Rows(entries, opts())) != 0 {
		t.Fatal("rows of nothing")
	}
	entries = []Entry{
		Decode(line("in", alice, `{"t":"msg","id":"1","ts":"2026-09-25T17:03:11Z","th":"thr_1","subject":"Port auth","parts":[
			{"k":"text","text":"one two three four five six seven eight nine ten eleven"},
			{"k":"code","lang":"go","text":"func main() {\n\tfmt.Println(1)\n}"},
			{"k":"blob","ref":"b1","name":"out.log","mime":"text/plain","size":2048}]}`)),
		Decode(line("in", alice, `{"t":"chunk","id":"2","ts":"2026-09-25T17:03:12Z","th":"thr_1","ref":"b1","off":0,"data":"","end":true}`)),
		Decode(line("out", bob, `{"t":"state","id":"3","ts":"2026-09-24T09:00:00Z","th":"thr_1","state":"done","note":"merged"}`)),
		Decode(line("out", bob, `{"t":"msg","id":"4","ts":"2026-09-25T17:05:00Z","th":"thr_1","re":"1","parts":[{"k":"text","text":"ok"}]}`)),
	}
	rows := Rows(entries, opts())
	var got []string
	for _, r := range rows {
		got = append(got, fmt.Sprintf("%d|%d|%s", r.Kind, r.Entry, r.Text))
	}
	// Code sits in a box under its language; my state line says "you are".
	want := []string{
		"0|0|alice  17:03",
		"1|0|Subject: Port auth",
		"2|0|one two three four five six seven eight",
		"2|0|nine ten eleven",
		"9|0|go",
		"3|0|func main() {",
		"3|0|    fmt.Println(1)",
		"3|0|}",
		"5|0|out.log  2.0 KiB  text/plain",
		"8|2|",
		"6|2|Sep 24 09:00  you are now done — merged",
		"8|3|",
		"0|3|You  17:05  …  (reply)",
		"2|3|ok",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("rows:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if !rows[len(rows)-1].Mine || rows[0].Mine {
		t.Error("mine is not told apart")
	}
	if b := rows[8].Blob; b == nil || b.Ref != "b1" || rows[8].From != alice {
		t.Errorf("blob row = %+v", rows[8])
	}
	// The thread's own subject is shown once, by the window, not again.
	o := opts()
	o.Subject = "Port auth"
	for _, r := range Rows(entries, o) {
		if strings.Contains(r.Text, "Subject:") {
			t.Errorf("subject repeated: %q", r.Text)
		}
	}
}

// Consecutive lines from one sender within a few minutes go under one
// header; another sender, a state line or a long pause starts a new one.
func TestRowsGroupBySender(t *testing.T) {
	msg := func(dir, from, id, ts, text string) Entry {
		return Decode(line(dir, from, `{"t":"msg","id":"`+id+`","ts":"`+ts+`","th":"thr_1","parts":[{"k":"text","text":"`+text+`"}]}`))
	}
	entries := []Entry{
		msg("in", alice, "1", "2026-09-25T17:00:00Z", "one"),
		msg("in", alice, "2", "2026-09-25T17:01:00Z", "two"),
		msg("in", alice, "3", "2026-09-25T17:20:00Z", "three"), // a pause
		msg("out", bob, "4", "2026-09-25T17:21:00Z", "four"),
		msg("out", bob, "5", "2026-09-25T17:21:30Z", "five"),
		Decode(line("out", bob, `{"t":"state","id":"6","ts":"2026-09-25T17:22:00Z","th":"thr_1","state":"done"}`)),
		msg("out", bob, "7", "2026-09-25T17:22:30Z", "seven"),
	}
	entries[3].Acked = true
	var got []string
	for _, r := range Rows(entries, opts()) {
		got = append(got, r.Text)
	}
	want := []string{
		"alice  17:00", "one", "two",
		"", "alice  17:20", "three",
		"", "You  17:21  " + MarkAcked, "four", "five", MarkPending + " not delivered yet",
		"", "17:22  you are now done",
		"", "You  17:22  " + MarkPending, "seven",
	}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("rows:\n%q\nwant\n%q", got, want)
	}
	// Appending a line continues the group it joins.
	more := append(entries[:len(entries):len(entries)], msg("out", bob, "8", "2026-09-25T17:23:00Z", "eight"))
	rows := Rows(entries, opts())
	rows = AppendRows(rows, more, len(entries), opts())
	if last := rows[len(rows)-2:]; last[0].Text != "eight" || last[1].Kind != RowNotice {
		t.Errorf("appended rows end %+v", last)
	}
}

func TestRowsAckedAndMirrored(t *testing.T) {
	li := line("out", bob, `{"t":"msg","id":"4","ts":"2026-09-25T17:05:00Z","th":"thr_1","parts":[{"k":"text","text":"ok"}]}`)
	li.Acked = true
	li.MirroredFrom = aliceK
	rows := Rows([]Entry{Decode(li)}, opts())
	if rows[0].Text != "me  17:05  "+MarkAcked+"  "+MarkMirror || rows[0].Mine {
		t.Errorf("header = %q", rows[0].Text)
	}
}

func TestRowsEveryRowFits(t *testing.T) {
	long := strings.Repeat("x", 95) + " " + strings.Repeat("é", 130)
	e := Decode(line("in", alice, `{"t":"msg","id":"1","ts":"2026-09-25T17:03:11Z","th":"thr_1","subject":"`+long+`","parts":[
		{"k":"text","text":"`+long+`"},{"k":"code","text":"`+long+`"}]}`))
	o := opts()
	for _, r := range Rows([]Entry{e}, o) {
		for _, l := range []string{r.Text} {
			if n := utf8.RuneCountInString(l); n > o.Width {
				t.Errorf("line %q has %d runes, width %d", l, n, o.Width)
			}
		}
		if !utf8.ValidString(r.Text) {
			t.Errorf("row %q is not valid UTF-8 (cut inside a rune)", r.Text)
		}
	}
}

func TestWrap(t *testing.T) {
	for _, tc := range []struct {
		in   string
		w    int
		mono bool
		want []string
	}{
		{"", 10, false, []string{""}},
		{"a b c", 10, false, []string{"a b c"}},
		{"aaaa bbbb cccc", 9, false, []string{"aaaa bbbb", "cccc"}},
		{"aaaa bbbb cccc", 9, true, []string{"aaaa bbbb", " cccc"}},
		{"abcdefghij", 4, false, []string{"abcd", "efgh", "ij"}},
		{"a\r\nb\n\nc", 4, false, []string{"a", "b", "", "c"}},
		{"\tx", 8, true, []string{"    x"}},
		{"ééééé", 2, true, []string{"éé", "éé", "é"}},
	} {
		got := Wrap(tc.in, tc.w, tc.mono)
		if strings.Join(got, "|") != strings.Join(tc.want, "|") {
			t.Errorf("Wrap(%q, %d, %v) = %q, want %q", tc.in, tc.w, tc.mono, got, tc.want)
		}
	}
}

func TestClockAndSize(t *testing.T) {
	for ts, want := range map[string]string{
		"2026-09-25T17:03:11Z":      "17:03",
		"2026-09-25T17:03:11.5Z":    "17:03",
		"2026-03-01T08:00:00Z":      "Mar 1 08:00",
		"2025-12-31T23:59:00Z":      "2025-12-31 23:59",
		"2026-09-25T19:30:00+02:00": "17:30",
		"yesterday":                 "yesterday",
	} {
		if got := Clock(ts, now, time.UTC); got != want {
			t.Errorf("Clock(%q) = %q, want %q", ts, got, want)
		}
	}
	for n, want := range map[int64]string{0: "0 B", 1023: "1023 B", 1024: "1.0 KiB", 183422: "179.1 KiB", 5 << 20: "5.0 MiB", 3 << 30: "3.0 GiB"} {
		if got := Size(n); got != want {
			t.Errorf("Size(%d) = %q, want %q", n, got, want)
		}
	}
	if ShortKey(alice) != "AAAAAAAA" || ShortKey("me") != "me" {
		t.Errorf("ShortKey: %q %q", ShortKey(alice), ShortKey("me"))
	}
}

// BenchmarkRows10k measures decoding and flattening a 10,000-line thread,
// the work done off the UI goroutine when a thread opens.
func BenchmarkRows10k(b *testing.B) {
	lines := bigThread(10000)
	b.ResetTimer()
	for range b.N {
		_ = Rows(DecodeAll(lines), Options{Now: now, Loc: time.UTC})
	}
}

func TestRows10k(t *testing.T) {
	rows := Rows(DecodeAll(bigThread(10000)), Options{Now: now, Loc: time.UTC})
	// Every line gives a header and a text row, and a gap before all but the first.
	if want := 10000*3 - 1; len(rows) != want {
		t.Errorf("%d rows, want %d", len(rows), want)
	}
	if rows[len(rows)-1].Entry != 9999 {
		t.Errorf("last row belongs to entry %d", rows[len(rows)-1].Entry)
	}
}
