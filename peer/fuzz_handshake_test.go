package peer

import (
	"bufio"
	"bytes"
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/awp-tray/awp-tray/internal/testsync"
	"github.com/awp-tray/awp-tray/peer/key"
	"github.com/awp-tray/awp-tray/peer/wire"
)

// Fuzz modes: what the harness sends before the fuzzed bytes, so that the
// fuzzer also reaches the auth and resume stages of the handshake.
const (
	fuzzRaw        = 0 // only the fuzzed bytes
	fuzzAfterHello = 1 // a valid hello first
	fuzzAfterAuth  = 2 // a valid hello and a valid auth first
)

// FuzzHandshake feeds arbitrary bytes as the client's side of a connection
// to a node's handshake: the node must not panic, must end the handshake
// (with an error, or with a session when the bytes complete it), and must
// keep serving its other peer.
func FuzzHandshake(f *testing.F) {
	seedHandshake(f)
	quiet := func(c *Config) { c.NoSync = true; c.HandshakeTimeout = 5 * time.Second; c.Logger = nil }
	a := newTestNode(f, "a", quiet)
	b := newTestNode(f, "b", quiet)
	connect(f, b, a)
	th := sendText(f, b, a.Key(), "", "before fuzzing").Th
	pings := 1
	var mu sync.Mutex // serializes iterations' use of pings

	f.Fuzz(func(t *testing.T, mode uint8, data []byte) {
		mu.Lock()
		defer mu.Unlock()
		mode %= 3
		srv, cli := net.Pipe()
		defer cli.Close()
		k, err := key.NewPrivate()
		if err != nil {
			t.Fatal(err)
		}
		var ids wire.IDGen
		// Read the node's lines (its hello first) so its writer never blocks.
		nodeHello := make(chan []byte, 1)
		var wg sync.WaitGroup
		wg.Add(2)
		go func() {
			defer wg.Done()
			r := bufio.NewReaderSize(cli, 1<<20)
			first := true
			for {
				l, err := r.ReadBytes('\n')
				if err != nil {
					if first {
						close(nodeHello)
					}
					return
				}
				if first {
					nodeHello <- bytes.TrimSuffix(l, []byte("\n"))
					first = false
				}
			}
		}()
		go func() {
			defer wg.Done()
			defer cli.Close()
			if mode != fuzzRaw {
				h := fuzzHello(k, &ids)
				if _, err := cli.Write(append(h, '\n')); err != nil {
					return
				}
				if mode == fuzzAfterAuth {
					nh, ok := <-nodeHello
					if !ok {
						return
					}
					auth := fuzzLine(&ids, wire.TypeAuth, map[string]any{"sig": k.SignText(wire.AuthMessage(h, nh))})
					if _, err := cli.Write(append(auth, '\n')); err != nil {
						return
					}
				}
			}
			_, _ = cli.Write(data)
		}()

		s, err := a.handshake(srv, "")
		if s != nil {
			if err != nil {
				t.Fatalf("handshake returned a session and an error: %v", err)
			}
			if mode != fuzzAfterAuth || s.peer != k.Public() {
				t.Fatalf("handshake succeeded in mode %d as %s without the harness's auth", mode, s.peer.Short())
			}
			t.Logf("handshake completed in mode %d", mode)
			s.close(nil) // never registered: this only closes the connection
		} else if err == nil {
			t.Fatal("handshake returned neither a session nor an error")
		}
		srv.Close()
		wg.Wait()

		// The node still serves its connected peer.
		pings++
		sendText(t, b, a.Key(), th, "ping")
		want := pings
		testsync.Eventually(t, "a stores b's ping", func() bool {
			ls, err := a.Lines(th, key.PublicKey{})
			return err == nil && len(ls) == want
		})
	})
}

// fuzzHello is a valid hello line for k.
func fuzzHello(k key.PrivateKey, ids *wire.IDGen) []byte {
	return fuzzLine(ids, wire.TypeHello, map[string]any{"v": 0, "key": k.Public().String(), "name": "fuzz",
		"nonce": wire.NewNonce(16), "caps": []string{"chat", "blob"}})
}

func fuzzLine(ids *wire.IDGen, t string, fields map[string]any) []byte {
	m := map[string]any{"t": t, "id": ids.New(), "ts": wire.FormatTime(time.Now())}
	for k, v := range fields {
		m[k] = v
	}
	b, err := json.Marshal(m)
	if err != nil {
		panic(err)
	}
	return b
}

// seedHandshake seeds the corpus with valid hello lines, the lines that
// complete a handshake after the harness's hello and auth, the golden lines
// and a few broken ones.
func seedHandshake(f *testing.F) {
	var ids wire.IDGen
	k, err := key.NewPrivate()
	if err != nil {
		f.Fatal(err)
	}
	nl := func(ls ...[]byte) []byte { return append(bytes.Join(ls, []byte("\n")), '\n') }
	hello := fuzzHello(k, &ids)
	resume := fuzzLine(&ids, wire.TypeResume, map[string]any{"seen": map[string]string{"thr_9k2": "01J9ZX0000000000000000000Z"}})
	msg := fuzzLine(&ids, wire.TypeMsg, map[string]any{"th": "thr_9k2", "parts": []json.RawMessage{wire.TextPart("early")}})
	auth := fuzzLine(&ids, wire.TypeAuth, map[string]any{"sig": k.SignText([]byte("not the right bytes"))})
	for _, s := range [][]byte{
		nl(hello),
		nl(hello, auth, resume),
		bytes.ReplaceAll(nl(hello), []byte("\n"), []byte("\r\n")),
		nl(bytes.Replace(hello, []byte(`"v":0`), []byte(`"v":1`), 1)),
		nl(bytes.Replace(hello, []byte(`"v":0`), []byte(`"v":"0"`), 1)),
		nl([]byte(`[]`), hello),
		nl([]byte(`{"t":"hello"}`)),
		[]byte("{\"t\":\"hello\",\"name\":\"\xff\"}\n"),
		hello, // no newline: the line never ends
		[]byte("\n\n \t\r\n"),
	} {
		f.Add(uint8(fuzzRaw), s)
	}
	for _, s := range [][]byte{
		nl(auth),
		nl(hello),
		nl(msg),
		nl(resume),
	} {
		f.Add(uint8(fuzzAfterHello), s)
	}
	for _, s := range [][]byte{
		nl(resume),           // completes the handshake
		nl(msg, msg, resume), // early lines before resume
		nl([]byte(`{"t":"resume","seen":{"bad":"x"}}`)), // malformed resume
		nl(hello), // a second hello
		nl([]byte(`{"t":"zzz"}`), []byte(`not json`)),    // unknown type, then a bad frame
		nl([]byte(`{"t":"err","code":"not_allowed"}`)),   // the client gives up
		nl(bytes.Repeat([]byte(`{"t":"zzz"}`+"\n"), 70)), // too many lines without resume
	} {
		f.Add(uint8(fuzzAfterAuth), s)
	}
	// The golden lines, one by one and all together, in every mode.
	gb, err := os.ReadFile(filepath.Join("wire", "testdata", "golden.jsonl"))
	if err != nil {
		return // the golden file is optional here
	}
	for mode := uint8(0); mode < 3; mode++ {
		f.Add(mode, gb)
		for _, l := range bytes.Split(gb, []byte("\n")) {
			if len(bytes.TrimSpace(l)) > 0 {
				f.Add(mode, nl(l))
			}
		}
	}
}
