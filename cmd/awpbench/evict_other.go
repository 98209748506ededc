//go:build !linux

package main

import "errors"

func evictCache(string) error { return errors.New("not on this system") }
