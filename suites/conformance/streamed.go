package conformance

import (
	"context"
	"crypto/rand"
	"fmt"
	"os"
	"path/filepath"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"

	"github.com/cmp-conformance/cmp-conformance/fixtures/dsl"
)

// SSG-001: server-side generation takes an archive from the user's machine
// (`argocd app diff --local DIR --server-side-generate` streams it through
// the API server to the repo-server, which unpacks it for the plugin). Since
// CVE-2023-40584 (2.6.15, 2.7.14, 2.8.3) the repo-server refuses an archive
// over --streamed-manifest-max-tar-size (100M) or one that unpacks to more
// than --streamed-manifest-max-extracted-size (1G). The check lowers both
// (the documented settings), so that a hostile archive of a few megabytes
// stands for one of a gigabyte: incompressible bytes over the archive
// limit, zeros that compress to kilobytes and unpack over the other.

const (
	streamedMaxTar       = 1_000_000
	streamedMaxExtracted = 4_000_000
)

var streamedLimits = Check{
	ID:    "SSG-001",
	Title: "server-side generation (app diff --local --server-side-generate) refuses an archive over the repo-server's size limits, compressed or unpacked, and the repo-server goes on serving (CVE-2023-40584)",
	Area:  Security, Level: Core, Versions: ">= 2.8.3 || >= 2.7.14, < 2.8.0 || >= 2.6.15, < 2.7.0", Roles: []Role{RoleNamedOnly},
	RepoServer: []string{
		fmt.Sprintf("ARGOCD_REPO_SERVER_STREAMED_MANIFEST_MAX_TAR_SIZE=%d", streamedMaxTar),
		fmt.Sprintf("ARGOCD_REPO_SERVER_STREAMED_MANIFEST_MAX_EXTRACTED_SIZE=%d", streamedMaxExtracted),
	},
	Test: func(ctx context.Context, s *Suite) {
		p := s.Plugin(RoleNamedOnly)
		// DISC-008's probe file too: a named plugin that has discovery
		// must also match (#18053); the reference has none.
		c := s.Given(ctx).NamePrefix("ssg-limits").Path("contract-app").File(p.Name+".probe", nil).Plugin(p.FullName())
		c.When().CreateApp().Then().Expect(dsl.NoActionError())
		dir, err := c.Checkout(ctx)
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		ginkgo.DeferCleanup(os.RemoveAll, dir)
		diff := []string{"app", "diff", c.Name(), "--local", dir, "--server-side-generate", "--local-include", "*"}

		random := make([]byte, 2*streamedMaxTar)
		_, _ = rand.Read(random)
		hostile := []struct {
			file, what string
			data       []byte
		}{
			{"random.bin", fmt.Sprintf("%d random bytes, over the %d-byte limit on the archive", len(random), streamedMaxTar), random},
			{"zeros.bin", fmt.Sprintf("%d zero bytes, which compress to kilobytes and unpack over the %d-byte limit", 2*streamedMaxExtracted, streamedMaxExtracted), make([]byte, 2*streamedMaxExtracted)},
		}
		for _, h := range hostile {
			path := filepath.Join(dir, h.file)
			gomega.Expect(os.WriteFile(path, h.data, 0o644)).To(gomega.Succeed())
			r := cli(ctx, s, diff...)
			// app diff exits 0 (no difference) or 1 (a difference) once
			// it has generated; anything else is an error.
			gomega.Expect(r.ExitCode).NotTo(gomega.BeElementOf(0, 1), "an archive holding %s was accepted: argocd app diff exited %d:\n%s", h.what, r.ExitCode, tail(r.Output))
			observe("%s: refused (exit %d): %s", h.file, r.ExitCode, tail(r.Output))
			gomega.Expect(os.Remove(path)).To(gomega.Succeed())
		}
		r := cli(ctx, s, diff...)
		gomega.Expect(r.ExitCode).To(gomega.BeElementOf(0, 1), "after refusing the hostile archives, the repo-server no longer serves server-side generation: argocd app diff exited %d:\n%s", r.ExitCode, tail(r.Output))
	},
}

// tail is the end of a long output, for a message.
func tail(out string) string {
	const keep = 600
	if len(out) > keep {
		return "..." + out[len(out)-keep:]
	}
	return out
}
