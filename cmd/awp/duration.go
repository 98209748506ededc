package main

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

const day = 24 * time.Hour

// durationValue is a duration flag that takes Go durations (90s, 30m,
// 1h) and days in front of one (7d, 1d12h, 1.5d): grants and approvals
// last days, and 168h is not how people count a week.
type durationValue time.Duration

func (d *durationValue) Set(s string) error {
	v, err := parseDuration(s)
	if err != nil {
		return err
	}
	*d = durationValue(v)
	return nil
}

func (d *durationValue) String() string { return formatDuration(time.Duration(*d)) }

// durationVar defines a duration flag that also takes days.
func (fs *flagSet) durationVar(p *time.Duration, name string, value time.Duration, usage string) {
	*p = value
	fs.Var((*durationValue)(p), name, usage)
}

// duration defines a duration flag that also takes days.
func (fs *flagSet) duration(name string, value time.Duration, usage string) *time.Duration {
	p := new(time.Duration)
	fs.durationVar(p, name, value, usage)
	return p
}

// parseDuration reads a Go duration, optionally preceded by a number of
// days ("7d", "1d12h", "-2d", "0.5d").
func parseDuration(s string) (time.Duration, error) {
	bad := fmt.Errorf("duration %q: want a Go duration (90s, 30m, 1h) or days (7d, 1d12h)", s)
	t, neg := s, false
	if rest, ok := strings.CutPrefix(t, "-"); ok {
		t, neg = rest, true
	} else {
		t = strings.TrimPrefix(t, "+")
	}
	var days float64
	if num, rest, ok := strings.Cut(t, "d"); ok {
		if !isDecimal(num) {
			return 0, bad
		}
		n, err := strconv.ParseFloat(num, 64)
		if err != nil || n*float64(day) > math.MaxInt64/2 {
			return 0, bad
		}
		days, t = n, rest
	} else if t == "" {
		return 0, bad
	}
	var rest time.Duration
	if t != "" {
		var err error
		if rest, err = time.ParseDuration(t); err != nil || rest < 0 || strings.HasPrefix(t, "+") {
			return 0, bad
		}
	}
	total := time.Duration(days*float64(day)) + rest
	if total < 0 { // overflow
		return 0, bad
	}
	if neg {
		total = -total
	}
	return total, nil
}

// isDecimal reports whether s is digits with at most one '.' among them.
func isDecimal(s string) bool {
	digits, dots := 0, 0
	for _, r := range s {
		switch {
		case r >= '0' && r <= '9':
			digits++
		case r == '.':
			dots++
		default:
			return false
		}
	}
	return digits > 0 && dots <= 1
}

// formatDuration writes d as parseDuration reads it, short: 7d, 1d12h,
// 10m, 1h30m, 90s.
func formatDuration(d time.Duration) string {
	if d < 0 {
		return "-" + formatDuration(-d)
	}
	if d == 0 {
		return "0s"
	}
	var b strings.Builder
	if d >= day {
		fmt.Fprintf(&b, "%dd", d/day)
		d %= day
	}
	if d > 0 {
		s := d.String()
		if strings.HasSuffix(s, "m0s") {
			s = strings.TrimSuffix(s, "0s")
		}
		if strings.HasSuffix(s, "h0m") {
			s = strings.TrimSuffix(s, "0m")
		}
		b.WriteString(s)
	}
	return b.String()
}
