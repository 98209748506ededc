package menu

import (
	"time"
)

// Pause is a pause of desktop notifications for new messages. Requests
// waiting for a decision are still notified during one: an unseen request
// is denied at its deadline (docs/notify.md).
type Pause struct {
	// Until is when a timed pause ends (zero: none).
	Until time.Time `json:"until,omitzero"`
	// Forever pauses until the person resumes.
	Forever bool `json:"forever,omitempty"`
}

// The pauses the menu offers.
const (
	// PauseHourFor is how long "For 1 hour" pauses.
	PauseHourFor = time.Hour
	// TomorrowAt is when "Until tomorrow" ends, as a time of day: the
	// start of a working day, so a pause taken in the evening lasts the
	// night. The item names the time ("Until tomorrow 08:00").
	TomorrowAt = 8 * time.Hour
)

// Active reports whether notifications are paused at now.
func (p Pause) Active(now time.Time) bool {
	return p.Forever || now.Before(p.Until)
}

// PauseFor is the pause a menu action asks for at now (loc: the local
// time zone; nil means time.Local). Resume and other kinds give no pause.
func PauseFor(k Kind, now time.Time, loc *time.Location) Pause {
	switch k {
	case PauseHour:
		return Pause{Until: now.Add(PauseHourFor)}
	case PauseTomorrow:
		return Pause{Until: TomorrowEnd(now, loc)}
	case PauseForever:
		return Pause{Forever: true}
	}
	return Pause{}
}

// TomorrowEnd is tomorrow at TomorrowAt, local time.
func TomorrowEnd(now time.Time, loc *time.Location) time.Time {
	if loc == nil {
		loc = time.Local
	}
	n := now.In(loc)
	// The time of day by the clock, not the time elapsed since midnight
	// (they differ on a daylight saving day).
	h, m := int(TomorrowAt/time.Hour), int(TomorrowAt%time.Hour/time.Minute)
	return time.Date(n.Year(), n.Month(), n.Day()+1, h, m, 0, 0, loc)
}

// Describe says the pause for the status line: "notifications paused
// until 16:45", "… until tomorrow 08:00", "… until Mon 2 Jan 08:00",
// "notifications paused" (until resumed); "" when not paused.
func (p Pause) Describe(now time.Time, loc *time.Location) string {
	switch {
	case p.Forever:
		return "notifications paused"
	case !p.Active(now):
		return ""
	}
	if loc == nil {
		loc = time.Local
	}
	n, u := now.In(loc), p.Until.In(loc)
	switch {
	case sameDay(n, u):
		return "notifications paused until " + clock(u)
	case sameDay(n.AddDate(0, 0, 1), u):
		return "notifications paused until tomorrow " + clock(u)
	}
	return "notifications paused until " + u.Format("Mon 2 Jan 15:04")
}

func sameDay(a, b time.Time) bool {
	ay, am, ad := a.Date()
	by, bm, bd := b.Date()
	return ay == by && am == bm && ad == bd
}

// clock is a time of day as the menu shows it: "08:00".
func clock(t time.Time) string { return t.Format("15:04") }
