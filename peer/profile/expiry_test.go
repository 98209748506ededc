package profile

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"
)

func TestParseExp(t *testing.T) {
	good := map[string]time.Time{
		"2026-09-25T17:13:11Z":                time.Date(2026, 9, 25, 17, 13, 11, 0, time.UTC),
		"2026-09-25t17:13:11z":                time.Date(2026, 9, 25, 17, 13, 11, 0, time.UTC),
		"2026-09-25T17:13:11.5Z":              time.Date(2026, 9, 25, 17, 13, 11, 5e8, time.UTC),
		"2026-09-25T17:13:11.123456789Z":      time.Date(2026, 9, 25, 17, 13, 11, 123456789, time.UTC),
		"2026-09-25T19:13:11+02:00":           time.Date(2026, 9, 25, 17, 13, 11, 0, time.UTC),
		"2026-09-25T17:13:11.000-00:30":       time.Date(2026, 9, 25, 17, 43, 11, 0, time.UTC),
		"2024-02-29T00:00:00Z":                time.Date(2024, 2, 29, 0, 0, 0, 0, time.UTC),
		"0001-01-01T00:00:00Z":                time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC),
		"2026-09-25T17:13:11.999999999+23:59": time.Date(2026, 9, 24, 17, 14, 11, 999999999, time.UTC),
	}
	for s, want := range good {
		got, err := ParseExp(s)
		if err != nil || !got.Equal(want) {
			t.Errorf("ParseExp(%q) = %v, %v; want %v", s, got, err, want)
		}
	}
	for _, s := range []string{
		"", "2026", "2026-09-25", "2026-09-25T17:13Z", "2026-09-25 17:13:11Z", "2026-09-25T17:13:11",
		"26-09-25T17:13:11Z", "2026-9-25T17:13:11Z", "2026-09-25T7:13:11Z", "+2026-09-25T17:13:11Z",
		"2026-09-25T17:13:11.Z", "2026-09-25T17:13:11.1234567890Z", "2026-09-25T17:13:11ZZ",
		"2026-09-25T17:13:11+0200", "2026-09-25T17:13:11+02", "2026-09-25T17:13:11 Z",
		"2026-13-25T17:13:11Z", "2026-02-30T17:13:11Z", "2025-02-29T00:00:00Z", "2026-09-25T24:00:00Z",
		"2026-09-25T17:60:11Z", "2026-09-25T23:59:60Z", "2026-09-25T17:13:11+24:00",
		"2026-09-25T17:13:11+02:60", "１２３４-09-25T17:13:11Z", "2026-09-25T17:13:11Z\n",
		"1790352652", strings.Repeat("9", 100),
	} {
		if got, err := ParseExp(s); !errors.Is(err, ErrBadRequest) {
			t.Errorf("ParseExp(%q) = %v, %v; want ErrBadRequest", s, got, err)
		}
	}
}

func TestRequestExp(t *testing.T) {
	exp, ok, err := RequestExp([]byte(`{"cmd":["true"],"exp":"2026-09-25T17:13:11Z"}`))
	if err != nil || !ok || !exp.Equal(time.Date(2026, 9, 25, 17, 13, 11, 0, time.UTC)) {
		t.Fatalf("RequestExp = %v %v %v", exp, ok, err)
	}
	if _, ok, err := RequestExp([]byte(`{"cmd":["true"],"x":{"exp":1}}`)); ok || err != nil {
		t.Fatalf("no exp: ok %v err %v", ok, err)
	}
	for _, s := range []string{
		`{"exp":null}`, `{"exp":1790352652}`, `{"exp":"tomorrow"}`, `{"exp":["2026-09-25T17:13:11Z"]}`,
		`{"exp":"2026-09-25T17:13:11Z","exp":"2099-09-25T17:13:11Z"}`, // which one would the person see?
		`{"exp":"2026-09-25T17:13:11Z","EXP":"2099-09-25T17:13:11Z"}`,
		`[]`, `{`, `{"exp":"2026-09-25T17:13:11Z"} x`,
	} {
		if _, _, err := RequestExp([]byte(s)); !errors.Is(err, ErrBadRequest) {
			t.Errorf("RequestExp(%s) = %v, want ErrBadRequest", s, err)
		}
	}
}

func TestWithExp(t *testing.T) {
	at := time.Date(2026, 9, 25, 17, 13, 11, 987654321, time.UTC)
	for in, want := range map[string]string{
		`{"cmd":"true"}`: `{"cmd":"true","exp":"2026-09-25T17:13:11.987Z"}`,
		`{}`:             `{"exp":"2026-09-25T17:13:11.987Z"}`,
		" { \n} \n":      " { \n\"exp\":\"2026-09-25T17:13:11.987Z\"}",
		`{"a":1 }`:       `{"a":1 ,"exp":"2026-09-25T17:13:11.987Z"}`,
		`{"exp":"2026-09-25T17:00:00Z","cmd":"x"}`: `{"exp":"2026-09-25T17:00:00Z","cmd":"x"}`, // earlier: kept
		`{"exp":"2026-09-25T18:00:00Z","cmd":"x"}`: `{"cmd":"x","exp":"2026-09-25T17:13:11.987Z"}`,
	} {
		got, err := WithExp(json.RawMessage(in), at)
		if err != nil || string(got) != want {
			t.Errorf("WithExp(%q) = %s, %v; want %s", in, got, err, want)
		}
		if exp, ok, err := RequestExp(got); err != nil || !ok || exp.After(at) {
			t.Errorf("WithExp(%q): exp %v %v %v, later than %v", in, exp, ok, err, at)
		}
	}
	if _, err := WithExp(json.RawMessage(`{"exp":"x"}`), at); !errors.Is(err, ErrBadRequest) {
		t.Errorf("WithExp over a bad exp: %v", err)
	}
}

// FuzzParseExp: ParseExp never panics, refuses with ErrBadRequest, and
// what it reads is the same instant after formatting it again; a time
// this peer writes always reads back.
func FuzzParseExp(f *testing.F) {
	for _, s := range []string{"2026-09-25T17:13:11Z", "2026-09-25T17:13:11.123+05:30", "2026-02-30T00:00:00Z", "2026-09-25t17:13:11.1z", ""} {
		f.Add(s, int64(0))
	}
	f.Fuzz(func(t *testing.T, s string, ns int64) {
		got, err := ParseExp(s)
		if err != nil {
			if !errors.Is(err, ErrBadRequest) {
				t.Fatalf("error does not wrap ErrBadRequest: %v", err)
			}
		} else {
			again, err := ParseExp(got.Format(time.RFC3339Nano))
			if err != nil || !again.Equal(got) {
				t.Fatalf("%q read as %v; its RFC 3339 text reads as %v (%v)", s, got, again, err)
			}
			if len(s) > MaxExpLen {
				t.Fatalf("read %d bytes", len(s))
			}
		}
		// Any time from year 1 to 9999 that this peer writes reads back.
		tm := time.Unix(0, 0).UTC().Add(time.Duration(ns))
		text := tm.Format("2006-01-02T15:04:05.000Z")
		if back, err := ParseExp(text); err != nil || !back.Equal(tm.Truncate(time.Millisecond)) {
			t.Fatalf("%s: %v %v", text, back, err)
		}
		data, _ := json.Marshal(map[string]string{"exp": s, "cmd": "true"})
		if exp, ok, err := RequestExp(data); (err == nil) != ok || (ok && !exp.Equal(got)) {
			t.Fatalf("RequestExp disagrees with ParseExp on %q: %v %v %v", s, exp, ok, err)
		}
	})
}
