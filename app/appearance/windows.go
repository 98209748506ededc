//go:build windows

package appearance

import (
	"context"
	"errors"
	"fmt"

	"golang.org/x/sys/windows"
	"golang.org/x/sys/windows/registry"
)

// personalizeKey holds the task bar's theme (SystemUsesLightTheme) and
// the apps' (AppsUseLightTheme); the tray icon sits on the task bar.
const (
	personalizeKey = `Software\Microsoft\Windows\CurrentVersion\Themes\Personalize`
	taskbarValue   = "SystemUsesLightTheme"
)

// watch reads the task bar's theme and waits for changes to the key with
// RegNotifyChangeKeyValue (no polling).
func watch(ctx context.Context, changed func(Scheme)) (Scheme, error) {
	k, err := registry.OpenKey(registry.CURRENT_USER, personalizeKey, registry.QUERY_VALUE|registry.NOTIFY)
	if err != nil {
		return NoPreference, fmt.Errorf("appearance: open HKCU\\%s: %w", personalizeKey, err)
	}
	s := readKey(k)
	ev, err := windows.CreateEvent(nil, 0, 0, nil)
	if err != nil {
		k.Close()
		return s, fmt.Errorf("appearance: %w", err)
	}
	stop, err := windows.CreateEvent(nil, 1, 0, nil)
	if err != nil {
		windows.CloseHandle(ev)
		k.Close()
		return s, fmt.Errorf("appearance: %w", err)
	}
	go func() {
		<-ctx.Done()
		windows.SetEvent(stop)
	}()
	go func() {
		defer k.Close()
		defer windows.CloseHandle(ev)
		defer windows.CloseHandle(stop)
		last := s
		for {
			if err := windows.RegNotifyChangeKeyValue(windows.Handle(k), false, windows.REG_NOTIFY_CHANGE_LAST_SET, ev, true); err != nil {
				return
			}
			r, err := windows.WaitForMultipleObjects([]windows.Handle{ev, stop}, false, windows.INFINITE)
			if err != nil || r != windows.WAIT_OBJECT_0 {
				return // stopped, or the wait failed
			}
			if n := readKey(k); n != last {
				last = n
				if changed != nil {
					changed(n)
				}
			}
		}
	}()
	return s, nil
}

// readKey reads SystemUsesLightTheme: 0 dark, else light; missing (before
// Windows 10 1903) is no preference.
func readKey(k registry.Key) Scheme {
	v, _, err := k.GetIntegerValue(taskbarValue)
	switch {
	case errors.Is(err, registry.ErrNotExist), err != nil:
		return NoPreference
	case v == 0:
		return Dark
	}
	return Light
}
