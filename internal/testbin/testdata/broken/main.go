// Command broken does not compile: testbin's test checks what a failed
// build says.
package main

func main() {
	var n int = "not a number"
	_ = n
}
