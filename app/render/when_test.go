package render

import (
	"testing"
	"time"
)

func TestDuration(t *testing.T) {
	for d, want := range map[time.Duration]string{
		time.Hour:                  "1 hour",
		2 * time.Hour:              "2 hours",
		24 * time.Hour:             "1 day",
		30 * 24 * time.Hour:        "30 days",
		10 * time.Minute:           "10 minutes",
		time.Minute:                "1 minute",
		45 * time.Second:           "45 seconds",
		90 * time.Minute:           "1 hour 30 minutes",
		25 * time.Hour:             "25 hours",
		61 * time.Second:           "1 minute 1 second",
		0:                          "0 seconds",
		time.Hour + 30*time.Second: "1 hour 0 minutes",
	} {
		if got := Duration(d); got != want {
			t.Errorf("Duration(%v) = %q, want %q", d, got, want)
		}
	}
}

func TestCountdown(t *testing.T) {
	now := time.Date(2026, 12, 1, 15, 23, 58, 0, time.UTC)
	for left, want := range map[time.Duration]string{
		5 * time.Minute:                "5:00 left",
		4*time.Minute + 59*time.Second: "4:59 left",
		7 * time.Second:                "0:07 left",
		200 * time.Millisecond:         "0:01 left",
		time.Hour + 2*time.Minute:      "1:02:00 left",
		0:                              "time is up",
		-time.Second:                   "time is up",
	} {
		if got := Countdown(now.Add(left), now); got != want {
			t.Errorf("Countdown(%v) = %q, want %q", left, got, want)
		}
	}
}

func TestAgo(t *testing.T) {
	now := time.Date(2026, 12, 1, 15, 4, 0, 0, time.UTC)
	for _, c := range []struct {
		t    time.Time
		want string
	}{
		{now.Add(-20 * time.Second), "just now"},
		{now.Add(-5 * time.Minute), "5 min ago"},
		{now.Add(-3 * time.Hour), "3 h ago"},
		{now.Add(-26 * time.Hour), "yesterday"},
		{now.AddDate(0, 0, -3), "Nov 28"},
		{now.AddDate(-1, 0, 0), "2025-12-01"},
	} {
		if got := Ago(c.t, now, time.UTC); got != c.want {
			t.Errorf("Ago(%v) = %q, want %q", c.t, got, c.want)
		}
	}
}
