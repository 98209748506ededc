// Package notifytest holds fakes for tests: Backend, a notification server
// that records everything and lets a test invoke actions, dismiss, expire
// and restart; Notifier, which records what the tray app feeds it; and
// Clock, a clock that moves only when told to.
package notifytest
