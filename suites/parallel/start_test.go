package parallel

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// shareScript is a share that marks itself started, counts the shares
// started so far (after waiting, when wait says so, for all three or for
// 5 s), writes the count to saw, then says its environment is up.
const shareScript = `dir=$(dirname "$1"); touch "$dir/started-$2"
count() { ls "$dir"/started-* | wc -l; }
i=0; while [ "$3" = wait ] && [ "$(count)" -lt 3 ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i+1)); done
[ "$3" = pause ] && sleep 0.3
count > "$1/saw"; touch "$1/` + UpFile + `"`

func startShares(t *testing.T, staggered bool, mode string) []int {
	t.Helper()
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	shares := [][]Unit{{{Binding: "a"}}, {{Binding: "b"}}, {{Binding: "c"}}}
	runs := Run(ctx, dir, shares, staggered, func(i int, output, _, _ string) *exec.Cmd {
		return exec.Command("sh", "-c", shareScript, "share", output, string(rune('0'+i)), mode)
	})
	var saw []int
	for i, r := range runs {
		b, err := os.ReadFile(filepath.Join(r.output, "saw"))
		if err != nil {
			t.Fatalf("share %d: %v (err %v)", i, err, r.err)
		}
		n, err := strconv.Atoi(strings.TrimSpace(string(b)))
		if err != nil {
			t.Fatalf("share %d: %v", i, err)
		}
		saw = append(saw, n)
	}
	return saw
}

// With usable turns the shares start at once: each waits for the others,
// and all three see three started.
func TestRunStartsShares(t *testing.T) {
	for i, n := range startShares(t, false, "wait") {
		if n != 3 {
			t.Errorf("share %d saw %d of 3 shares started, want 3: the shares were not started at once", i, n)
		}
	}
}

// Staggered, a share starts once the one before it is up: share i sees
// i+1 started, however long the one before it took.
func TestRunStaggersShares(t *testing.T) {
	for i, n := range startShares(t, true, "pause") {
		if n != i+1 {
			t.Errorf("share %d saw %d shares started, want %d: a share started before the one before it was up", i, n, i+1)
		}
	}
}
