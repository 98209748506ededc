package app

import (
	"sync"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
)

// loopApp is a fyne.App whose Run blocks until Quit, like the real
// driver's loop; with hang set, Run never returns even after Quit, as
// Fyne 2.7.1's does when it loses its stop hook at shutdown.
type loopApp struct {
	fyne.App
	hang     bool
	quitOnce sync.Once
	quit     chan struct{}
	returned chan struct{} // closed when Run returns
	onRun    func()        // if set, called first in Run (the loop's goroutine)
}

func (l *loopApp) Run() {
	if l.onRun != nil {
		l.onRun()
	}
	<-l.quit
	if l.hang {
		select {}
	}
	close(l.returned)
}

func (l *loopApp) Quit() { l.quitOnce.Do(func() { close(l.quit) }) }

// runApp runs an App on a loopApp (before, if given, sees the loopApp
// first) and returns it with a channel that closes when Run returns and
// one that receives each Stuck call.
func runApp(t *testing.T, hang bool, before ...func(*loopApp)) (*App, <-chan struct{}, <-chan struct{}) {
	t.Helper()
	fa := &loopApp{App: test.NewTempApp(t), hang: hang, quit: make(chan struct{}), returned: make(chan struct{})}
	for _, f := range before {
		f(fa)
	}
	stuck := make(chan struct{}, 1)
	a := New(fa, Options{DataDir: t.TempDir(), Tray: &fakeTray{}, AutostartDir: t.TempDir(),
		QuitTimeout: 200 * time.Millisecond,
		Stuck:       func() { stuck <- struct{}{} },
	})
	ran := make(chan struct{})
	go func() { a.Run(); close(ran) }()
	t.Cleanup(func() {
		fa.Quit()
		a.Close()
	})
	return a, ran, stuck
}

// TestQuitWatchdog: when the Fyne loop does not return after Quit, Stuck
// is called (main shuts the node down and exits there); when it does,
// Stuck is not called, and nothing is called without a quit.
func TestQuitWatchdog(t *testing.T) {
	t.Run("loop hangs after quit", func(t *testing.T) {
		a, ran, stuck := runApp(t, true)
		select {
		case <-stuck:
			t.Fatal("Stuck called before any quit")
		case <-time.After(400 * time.Millisecond):
		}
		a.Quit()
		select {
		case <-stuck:
		case <-time.After(10 * time.Second):
			t.Fatal("Stuck not called although the loop never returned")
		}
		select {
		case <-ran:
			t.Fatal("Run returned from a loop that hangs")
		default:
		}
	})
	t.Run("loop returns", func(t *testing.T) {
		a, ran, stuck := runApp(t, false)
		a.Quit()
		select {
		case <-ran:
		case <-time.After(10 * time.Second):
			t.Fatal("Run did not return after Quit")
		}
		select {
		case <-stuck:
			t.Fatal("Stuck called although the loop returned")
		case <-time.After(400 * time.Millisecond):
		}
	})
}

// TestStopHookRunsAfterLoop: Run takes the lifecycle's stopped hook out
// before the loop starts (Fyne 2.7.1 would hand it to its closing loop at
// quit and panic or hang: see takeStopHook) and calls it once the loop
// has returned, once.
func TestStopHookRunsAfterLoop(t *testing.T) {
	calls := make(chan bool, 4) // whether the loop had returned at the call
	hookInLoop := make(chan bool, 1)
	a, ran, _ := runApp(t, false, func(fa *loopApp) {
		lc := fa.Lifecycle().(interface{ OnStopped() func() })
		fa.onRun = func() { hookInLoop <- lc.OnStopped() != nil }
		fa.Lifecycle().SetOnStopped(func() {
			select {
			case <-fa.returned:
				calls <- true
			default:
				calls <- false
			}
		})
	})
	select {
	case has := <-hookInLoop:
		if has {
			t.Fatal("the lifecycle still has a stopped hook while the loop runs")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the loop never started")
	}
	a.Quit()
	select {
	case <-ran:
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not return after Quit")
	}
	if len(calls) != 1 {
		t.Fatalf("stopped hook called %d times, want 1", len(calls))
	}
	if after := <-calls; !after {
		t.Error("stopped hook called before the loop returned")
	}
}
