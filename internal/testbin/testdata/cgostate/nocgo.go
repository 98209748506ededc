//go:build !cgo

package main

const state = "no cgo"
