// Command cgostate prints whether it was built with cgo: testbin's test
// builds it with and without.
package main

import "fmt"

func main() { fmt.Println(state) }
