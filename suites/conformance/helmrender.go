package conformance

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	"sigs.k8s.io/yaml"

	"github.com/cmp-conformance/cmp-conformance/fixtures/dsl"
	"github.com/cmp-conformance/cmp-conformance/fixtures/kube"
)

// nativeAndPlugin are the generated manifests of a native and a plugin
// application, asked for at once (uncached: the two renders share nothing,
// and each spends most of its time waiting on git, the repo-server, a
// process), then normalized.
func nativeAndPlugin(native, plugin *dsl.Consequences, nativeApp, pluginApp string) (want, got []string) {
	ginkgo.GinkgoHelper()
	var raw [2][]string
	var errs [2]error
	var wg sync.WaitGroup
	for i, c := range []*dsl.Consequences{native, plugin} {
		wg.Go(func() { raw[i], errs[i] = c.Manifests(true) })
	}
	wg.Wait()
	return normalized(raw[0], errs[0], nativeApp), normalized(raw[1], errs[1], pluginApp)
}

// normalized are an application's generated manifests with what differs
// between two applications of the same source taken out: Argo CD's tracking
// metadata, and the application's name (also its release name and
// namespace), which becomes APP. They are YAML, sorted.
func normalized(raw []string, err error, app string) []string {
	ginkgo.GinkgoHelper()
	gomega.Expect(err).NotTo(gomega.HaveOccurred(), "manifests of %s", app)
	out := make([]string, 0, len(raw))
	for _, m := range raw {
		obj := map[string]any{}
		gomega.Expect(json.Unmarshal([]byte(m), &obj)).To(gomega.Succeed())
		kube.DropTracking(obj)
		data, err := yaml.Marshal(obj)
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		out = append(out, strings.ReplaceAll(string(data), app, "APP"))
	}
	slices.Sort(out)
	return out
}

// manifestDiff is "" when want and got hold the same objects.
func manifestDiff(want, got []string) string {
	return cmp.Diff(want, got)
}

// configMapData is the data of the ConfigMap named name among manifests.
func configMapData(manifests []string, name string) map[string]string {
	ginkgo.GinkgoHelper()
	for _, m := range manifests {
		var obj struct {
			Kind     string `json:"kind"`
			Metadata struct {
				Name string `json:"name"`
			} `json:"metadata"`
			Data map[string]string `json:"data"`
		}
		gomega.Expect(yaml.Unmarshal([]byte(m), &obj)).To(gomega.Succeed())
		if obj.Kind == "ConfigMap" && obj.Metadata.Name == name {
			return obj.Data
		}
	}
	gomega.Expect(manifestNames(manifests)).To(gomega.ContainElement("ConfigMap/"+name), "no ConfigMap %s rendered", name)
	return nil
}

// generationRounds is how many times each way is timed: an observation,
// not a judgement, so a median and a maximum of a few rounds (8 rounds of
// each took 3.7 s of HELM-001's 8.5 s on a quiet machine, and most of it on
// a loaded one).
const generationRounds = 5

// timeGeneration measures manifest generation (GET .../manifests, no cache:
// argocd-server, repo-server, then native helm or the plugin) for the native
// and the plugin application, alternating, and reports median and max of
// each and their ratio.
func timeGeneration(native, plugin *dsl.Consequences) {
	ginkgo.GinkgoHelper()
	var n, p []time.Duration
	for range generationRounds {
		for _, side := range []struct {
			c   *dsl.Consequences
			out *[]time.Duration
		}{{native, &n}, {plugin, &p}} {
			start := time.Now()
			_, err := side.c.Manifests(true)
			gomega.Expect(err).NotTo(gomega.HaveOccurred())
			*side.out = append(*side.out, time.Since(start))
		}
	}
	nm, np := percentile(n, 50), percentile(n, 100)
	pm, pp := percentile(p, 50), percentile(p, 100)
	observe("manifest generation over %d uncached rounds each: native Helm median %s max %s; Helm plugin median %s max %s; plugin/native median ratio %.2f",
		generationRounds, ms(nm), ms(np), ms(pm), ms(pp), float64(pm)/float64(nm))
}

// percentile is the nearest-rank percentile of d.
func percentile(d []time.Duration, pct int) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	rank := (pct*len(s) + 99) / 100
	return s[max(rank, 1)-1]
}

func ms(d time.Duration) string { return fmt.Sprintf("%.0fms", float64(d.Microseconds())/1000) }
