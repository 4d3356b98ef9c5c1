// Package ramdir puts a run's work folder on a tmpfs of its own. On this
// kind of machine a catalogue run is bound by CPU, and a third of the
// repo-servers' time went to ext4's inode allocation for the working copies
// they make and remove (a perf profile, docs/decisions.md): on a tmpfs the
// same files cost about a tenth less CPU in all. A pod's emptyDir may be a
// tmpfs too (medium: Memory), so no plugin sees anything a cluster could
// not give it; the report says which the run had.
package ramdir

import "fmt"

// Options decide whether and how big.
type Options struct {
	// Size caps the tmpfs in bytes (0: DefaultSize): what is written
	// beyond it fails with "no space left on device", as a full disk would.
	Size int64
	// Containers says the run bind-mounts folders of the work folder into
	// Docker containers: then dockerd must see this process's mounts.
	Containers bool
}

// DefaultSize is the cap Mount uses when no other is asked: a quarter of
// the machine's memory (6 GiB on 24). A catalogue run writes about 30 MiB
// there; the cap only bounds a plugin that writes without end. Each run
// (each share of a parallel one) checks the memory available on its own,
// so caps may add up past the machine's memory: what counts is what is
// written.
func DefaultSize(memTotal int64) int64 { return memTotal / 4 }

// Result is what Mount did.
type Result struct {
	// Size is the tmpfs's cap, 0 when none was mounted, and Why then why not.
	Size int64
	Why  string
}

// Note says what the run's work folder was, for the report.
func (r Result) Note(dir string) string {
	if r.Size > 0 {
		return fmt.Sprintf("the run's work folder %s (git repositories, the components' and plugins' scratch files, the embedded cluster's settings; its etcd's data stays in kwokctl's folder, written without fsync) is a tmpfs of %s, as a pod's emptyDir of medium Memory would be: a plugin that writes more fails as on a full disk (--work-tmpfs=false keeps it on disk)", dir, human(r.Size))
	}
	return fmt.Sprintf("the run's work folder %s is on disk, not a tmpfs: %s", dir, r.Why)
}

func human(n int64) string {
	const gib = 1 << 30
	if n >= gib && n%gib == 0 {
		return fmt.Sprintf("%d GiB", n/gib)
	}
	return fmt.Sprintf("%.1f GiB", float64(n)/gib)
}
