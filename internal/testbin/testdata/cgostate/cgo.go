//go:build cgo

package main

const state = "cgo"
