package turns

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestTakeWaitsForAFreeTurn(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	a, err := Take(ctx, dir, 2, "run a", false, nil)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Take(ctx, dir, 2, "run b", false, nil)
	if err != nil {
		t.Fatal(err)
	}
	told := make(chan []string, 1)
	got := make(chan *Turn)
	go func() {
		c, err := Take(ctx, dir, 2, "run c", false, func(h []string) { told <- h })
		if err != nil {
			t.Error(err)
		}
		got <- c
	}()
	h := <-told
	if len(h) != 2 || !strings.HasSuffix(h[0], ": run a") || !strings.HasSuffix(h[1], ": run b") {
		t.Errorf("holders %q, want run a and run b", h)
	}
	select {
	case <-got:
		t.Fatal("a third turn was taken while two of two were held")
	case <-time.After(3 * Poll):
	}
	b.Release()
	c := <-got
	if c == nil || c.Waited < 3*Poll {
		t.Fatalf("third turn %+v, want one taken after b's release", c)
	}
	a.Release()
	c.Release()
	c.Release() // twice is harmless
}

func TestTakeStopsWaitingWhenCancelled(t *testing.T) {
	dir := t.TempDir()
	a, err := Take(context.Background(), dir, 1, "run a", false, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Release()
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(errors.New("interrupted"))
	_, err = Take(ctx, dir, 1, "run b", false, nil)
	if err == nil || !strings.Contains(err.Error(), "interrupted") || !strings.Contains(err.Error(), "1 at once") {
		t.Fatalf("err %v, want the wait stopped by the cancellation", err)
	}
}

func TestTakeSaysWhenTheFolderIsUnusable(t *testing.T) {
	dir := t.TempDir() + "/file"
	if err := os.WriteFile(dir, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Take(context.Background(), dir, 1, "run a", false, nil)
	if !errors.Is(err, ErrUnusable) {
		t.Fatalf("err %v, want ErrUnusable for a folder that is a file", err)
	}
	var zero *Turn
	zero.Release() // a turn not taken releases nothing
	(&Turn{}).Release()
}

func TestUsable(t *testing.T) {
	dir := t.TempDir()
	if err := Usable(filepath.Join(dir, "turns")); err != nil {
		t.Errorf("a new folder of turns: %v", err)
	}
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := Usable(file); !errors.Is(err, ErrUnusable) {
		t.Errorf("a folder that is a file: %v, want ErrUnusable", err)
	}
	// Root opens any file, so a turn that cannot be opened is a folder.
	blocked := filepath.Join(dir, "blocked")
	if err := os.MkdirAll(slot(blocked, 0), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := Usable(blocked); !errors.Is(err, ErrUnusable) {
		t.Errorf("a turn that cannot be opened: %v, want ErrUnusable", err)
	}
}

// A turn held by a process that wrote no name shows no earlier holder's.
func TestHoldersLeavesOutNamesOfEndedProcesses(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(slot(dir, 1), []byte("pid 2147483646: run gone: bring-up\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	a, err := Take(context.Background(), dir, 2, "run a", false, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Release()
	if h := holders(dir, 2); len(h) != 1 || !strings.HasSuffix(h[0], ": run a") {
		t.Errorf("holders %q, want run a alone (the other name's process is gone)", h)
	}
}

// Waiting runs take turns in the order they began to wait, but a switch
// of version (ahead) goes before them all; the place of a run that ended
// holds no one back.
func TestTurnsGoInQueueOrderSwitchesFirst(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	holder, err := Take(ctx, dir, 1, "run a", false, nil)
	if err != nil {
		t.Fatal(err)
	}
	order := make(chan string, 4)
	waiting := make(chan struct{}, 4)
	take := func(name string, ahead bool) {
		got, err := Take(ctx, dir, 1, name, ahead, func([]string) { waiting <- struct{}{} })
		if err != nil {
			t.Error(err)
			return
		}
		order <- name
		time.Sleep(2 * Poll) // held long enough for the others to try
		got.Release()
	}
	// Whoever tried first after a release used to win: without the queue
	// this order would come one time in 24.
	for i := range 3 {
		go take(fmt.Sprintf("bring-up %d", i), false)
		<-waiting
	}
	go take("switch", true)
	<-waiting
	if n := waitingBefore(dir, nil); n != 4 {
		t.Fatalf("%d runs in the queue, want 4", n)
	}
	holder.Release()
	want := []string{"switch", "bring-up 0", "bring-up 1", "bring-up 2"}
	for _, w := range want {
		if got := <-order; got != w {
			t.Fatalf("%q took a turn where %q should have (order %q)", got, w, want)
		}
	}
	if places, _ := filepath.Glob(filepath.Join(dir, "*q*")); len(places) != 0 {
		t.Errorf("places left in the queue: %v", places)
	}

	// A dead run's place: a file nobody holds, at the queue's head.
	if err := os.WriteFile(filepath.Join(dir, "q0-00000000000000000001-gone.lock"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := Take(ctx, dir, 1, "run c", false, nil)
	if err != nil {
		t.Fatal(err)
	}
	c.Release()
	if places, _ := filepath.Glob(filepath.Join(dir, "q*")); len(places) != 0 {
		t.Errorf("a dead run's place was not removed: %v", places)
	}
}
