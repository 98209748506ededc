package render

import "testing"

// An exec request that failed before it ran has an error and no exit
// status: its result does not read "exit 0".
func TestExecResultWithoutExit(t *testing.T) {
	parts := decodeParts(t, `{"t":"msg","id":"1","ts":"x","th":"thr_1","parts":[{"k":"data","mime":"application/vnd.awp.exec-result+json","data":{"error":"expired"}}]}`)
	if p := parts[0]; p.Kind != PartResult || p.Title != "exec result" || !equalFields(p.Fields, []Field{{"error", "expired"}}) {
		t.Errorf("result = %+v", p)
	}
	parts = decodeParts(t, `{"t":"msg","id":"1","ts":"x","th":"thr_1","parts":[{"k":"data","mime":"application/vnd.awp.exec-result+json","data":{"exit":0,"stdout":"ok"}}]}`)
	if p := parts[0]; p.Title != "exec result: exit 0" {
		t.Errorf("result = %+v", p)
	}
}
