package bytesize

import "testing"

func TestFormat(t *testing.T) {
	for n, want := range map[int64]string{
		0: "0 B", 1023: "1023 B", 1024: "1.0 KiB", 183422: "179.1 KiB", 32768: "32.0 KiB",
		5 << 20: "5.0 MiB", 16777216 + 1<<19: "16.5 MiB", 3 << 30: "3.0 GiB", 2 << 50: "2.0 PiB", 4096 << 50: "4096.0 PiB",
	} {
		if got := Format(n); got != want {
			t.Errorf("Format(%d) = %q, want %q", n, got, want)
		}
	}
}
