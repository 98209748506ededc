package peer

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/awp-tray/awp-tray/peer/key/keytest"
	"github.com/awp-tray/awp-tray/peer/wire"
)

// FuzzParseGrantRequest: a grant request's data comes from any peer.
// parseGrantRequest never panics, and what it accepts is what the person
// is shown and a grant would hold: non-empty caps, keys that are keys, a
// ttl within MaxGrantTTL; that request written out again reads the same.
func FuzzParseGrantRequest(f *testing.F) {
	k2, k3 := keytest.SeededPublic(2).String(), keytest.SeededPublic(3).String()
	f.Add([]byte(`{"caps":["exec"],"ttl":3600,"reason":"run the tests"}`))
	f.Add([]byte(`{"caps":["fs:read","fs:write"],"sub":"` + k2 + `","on":["` + k3 + `"]}`))
	f.Add([]byte(`{"caps":["exec"],"on":[]}`))
	f.Add([]byte(`{"caps":["exec"],"caps":["fs:write"]}`))
	f.Add([]byte(`{"caps":["exec"],"ttl":1.5}`))
	f.Add([]byte(`{"caps":[null]}`))
	from := keytest.SeededPublic(1)
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := parseGrantRequest(json.RawMessage(data), from)
		if err != nil {
			return
		}
		if len(r.Caps) == 0 {
			t.Fatalf("%s: accepted with no caps", data)
		}
		for _, c := range r.Caps {
			if c == "" {
				t.Fatalf("%s: accepted an empty cap", data)
			}
		}
		if r.sub.IsZero() || r.Sub != r.sub.String() {
			t.Fatalf("%s: sub %q / %v", data, r.Sub, r.sub)
		}
		if len(r.On) != len(r.on) || (r.On == nil) != (r.on == nil) {
			t.Fatalf("%s: on %q / %v", data, r.On, r.on)
		}
		for _, k := range r.on {
			if k.IsZero() {
				t.Fatalf("%s: accepted the zero key in on", data)
			}
		}
		if r.ttl <= 0 || r.ttl > MaxGrantTTL || r.ttl != time.Duration(r.TTL)*time.Second {
			t.Fatalf("%s: ttl %d s / %v", data, r.TTL, r.ttl)
		}
		again, err := parseGrantRequest(wire.MustMarshal(r.GrantRequest), from)
		if err != nil || !reflect.DeepEqual(again, r) {
			t.Fatalf("%s: read %+v; written out and read again: %+v, %v", data, r, again, err)
		}
	})
}
