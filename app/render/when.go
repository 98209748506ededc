package render

import (
	"fmt"
	"time"
)

// Duration says how long d is in words a person reads at a glance: "1
// hour", "2 hours", "1 day", "30 days", "10 minutes", "45 seconds", and
// for what does not fall on a unit "1 hour 30 minutes" (never Go's
// "1h0m0s").
func Duration(d time.Duration) string {
	if d < 0 {
		d = -d
	}
	const day = 24 * time.Hour
	switch {
	case d >= day && d%day == 0:
		return plural(int64(d/day), "day")
	case d >= time.Hour && d%time.Hour == 0:
		return plural(int64(d/time.Hour), "hour")
	case d >= time.Minute && d%time.Minute == 0 && d < time.Hour:
		return plural(int64(d/time.Minute), "minute")
	case d < time.Minute:
		return plural(int64(d/time.Second), "second")
	case d >= day:
		return plural(int64(d/day), "day") + " " + plural(int64(d%day/time.Hour), "hour")
	case d >= time.Hour:
		return plural(int64(d/time.Hour), "hour") + " " + plural(int64(d%time.Hour/time.Minute), "minute")
	}
	return plural(int64(d/time.Minute), "minute") + " " + plural(int64(d%time.Minute/time.Second), "second")
}

func plural(n int64, unit string) string {
	if n == 1 {
		return "1 " + unit
	}
	return fmt.Sprintf("%d %ss", n, unit)
}

// Countdown says how long is left until deadline, as a clock a person
// watches: "4:59 left", "0:07 left", "1:02:00 left"; "time is up" once it
// passed.
func Countdown(deadline, now time.Time) string {
	left := deadline.Sub(now)
	if left <= 0 {
		return "time is up"
	}
	s := int64((left + time.Second - 1) / time.Second) // 0.2 s left reads 0:01
	h, m, sec := s/3600, s%3600/60, s%60
	if h > 0 {
		return fmt.Sprintf("%d:%02d:%02d left", h, m, sec)
	}
	return fmt.Sprintf("%d:%02d left", m, sec)
}

// Ago says how long ago t was, relative to now: "just now", "5 min ago",
// "3 h ago", "yesterday", then the date ("Nov 28", "2025-11-28" in another
// year), in loc (nil: local time).
func Ago(t, now time.Time, loc *time.Location) string {
	if loc == nil {
		loc = time.Local
	}
	d := now.Sub(t)
	switch {
	case d < time.Minute:
		return "just now"
	case d < time.Hour:
		return fmt.Sprintf("%d min ago", d/time.Minute)
	case d < 24*time.Hour:
		return fmt.Sprintf("%d h ago", d/time.Hour)
	}
	t, now = t.In(loc), now.In(loc)
	y := now.AddDate(0, 0, -1)
	switch {
	case t.Year() == y.Year() && t.YearDay() == y.YearDay():
		return "yesterday"
	case t.Year() == now.Year():
		return t.Format("Jan 2")
	}
	return t.Format("2006-01-02")
}

// parseTime reads an RFC 3339 time (zero when it is not one).
func parseTime(ts string) time.Time {
	t, err := time.Parse(time.RFC3339Nano, ts)
	if err != nil {
		return time.Time{}
	}
	return t
}

// ParseTime reads an RFC 3339 time as the node writes them; ok is false
// for anything else.
func ParseTime(ts string) (t time.Time, ok bool) {
	t = parseTime(ts)
	return t, !t.IsZero()
}
