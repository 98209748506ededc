package store

import (
	"os"
	"strings"
	"testing"
)

// The package documentation lists every bucket awp.db holds, so a bucket
// added without a word in doc.go fails here.
func TestDocListsEveryBucket(t *testing.T) {
	b, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, bk := range allBuckets {
		if !strings.Contains(string(b), "\n//\t"+string(bk)+" ") {
			t.Errorf("doc.go's Layout does not list the bucket %q", bk)
		}
	}
}
