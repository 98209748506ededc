package keystore

import (
	"errors"
	"testing"
)

func TestModeFromEnv(t *testing.T) {
	for _, c := range []struct {
		flag, env string
		want      Mode
		bad       bool
	}{
		{"", "", ModeKeyring, false},
		{"", "file", ModeFile, false},
		{"", "keyring", ModeKeyring, false},
		{"keyring", "file", ModeKeyring, false}, // the flag wins
		{"file", "", ModeFile, false},
		{"file", "bogus", ModeFile, false},
		{"", "File", "", true},
		{"plaintext", "", "", true},
		{"", "yes", "", true},
	} {
		t.Setenv(EnvKeyring, c.env)
		got, err := ModeFromEnv(c.flag)
		if c.bad {
			if !errors.Is(err, ErrBadMode) {
				t.Errorf("ModeFromEnv(%q) with %s=%q: %v, want ErrBadMode", c.flag, EnvKeyring, c.env, err)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("ModeFromEnv(%q) with %s=%q = %q, %v; want %q", c.flag, EnvKeyring, c.env, got, err, c.want)
		}
	}
}

func TestOpenChecks(t *testing.T) {
	if _, err := Open(Options{}); err == nil {
		t.Error("Open with no data directory succeeded")
	}
	if _, err := Open(Options{DataDir: t.TempDir(), Mode: "vault"}); !errors.Is(err, ErrBadMode) {
		t.Errorf("Open with a bad mode: %v, want ErrBadMode", err)
	}
	s, err := Open(Options{DataDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if s.Mode() != ModeKeyring {
		t.Errorf("default mode %q, want keyring", s.Mode())
	}
}
