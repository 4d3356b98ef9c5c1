//go:build !linux

package ramdir

// Mount says a tmpfs is for Linux only.
func Mount(dir string, o Options) Result { return Result{Why: "a tmpfs is mounted on Linux only"} }

// Unmount has nothing to do where Mount mounts nothing.
func Unmount(dir string) error { return nil }
