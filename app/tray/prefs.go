package tray

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/awp-tray/awp-tray/app/menu"
)

// PrefsName is the tray's preferences file in the data directory: the
// notifications pause, which outlives a restart (a pause "until tomorrow"
// taken before a reboot still holds after it).
const PrefsName = "tray.json"

// maxPrefs bounds the file read: it holds one small object.
const maxPrefs = 64 << 10

// prefs is what the file holds.
type prefs struct {
	Pause menu.Pause `json:"pause"`
}

// loadPrefs reads the preferences; a missing file (or path "") is the
// zero value.
func loadPrefs(path string) (prefs, error) {
	var p prefs
	if path == "" {
		return p, nil
	}
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return p, nil
	}
	if err != nil {
		return p, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxPrefs+1))
	if err != nil {
		return p, err
	}
	if len(b) > maxPrefs {
		return prefs{}, fmt.Errorf("%s: larger than %d bytes", path, maxPrefs)
	}
	if err := json.Unmarshal(b, &p); err != nil {
		return prefs{}, fmt.Errorf("%s: %w", path, err)
	}
	return p, nil
}

// savePrefs writes the preferences through a temporary file and a rename,
// so a crash leaves the old file or the new one.
func savePrefs(path string, p prefs) error {
	if path == "" {
		return nil
	}
	b, err := json.Marshal(p)
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".tray-*.json")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(append(b, '\n')); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
