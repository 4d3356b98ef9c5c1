package conformance

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"
	repoapiclient "github.com/argoproj/argo-cd/v3/reposerver/apiclient"
	"github.com/google/go-cmp/cmp"
	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	"sigs.k8s.io/yaml"

	"github.com/cmp-conformance/cmp-conformance/fixtures/dsl"
	"github.com/cmp-conformance/cmp-conformance/fixtures/kube"
	"github.com/cmp-conformance/cmp-conformance/plugins/sidecar"
	reportv1 "github.com/cmp-conformance/cmp-conformance/reports/v1alpha1"
)

// The UPG family (proposal 001: "upgrading needs only a new Argo CD and the
// parameters settings; downgrading ignores what the older version does not
// know"). Applications of every reference plugin, created with parameters on
// the older version and synced automatically, must come through each hop
// untouched: back to Synced and Healthy, the same manifests, the same
// resources, the same parameters and announcements, and only documented
// changes in what the plugin receives.

var upgradeUpstream = []string{"argoproj/argo-cd#9216"}

func upgradeCheck(id, title string, test func(ctx context.Context, s *Suite, a *upgradeApp)) Check {
	return Check{ID: id, Title: title, Area: Upgrade, Level: Core, Upstream: upgradeUpstream, AnyRole: upgradeRoles,
		Test: func(ctx context.Context, s *Suite) { eachUpgradeApp(ctx, s, test) }}
}

// eachUpgradeApp runs test for every application of the binding on this hop
// and fails with every application's failure, not only the first.
func eachUpgradeApp(ctx context.Context, s *Suite, test func(ctx context.Context, s *Suite, a *upgradeApp)) {
	ginkgo.GinkgoHelper()
	gomega.Expect(s.hop).NotTo(gomega.BeNil(), "the UPG checks run in an upgrade run (cmp-conformance run --upgrade-path)")
	apps := s.hop.appsOf(s.binding.Name)
	gomega.Expect(apps).NotTo(gomega.BeEmpty(), "binding %s has no application on this hop", s.binding.Name)
	var failures []string
	for _, a := range apps {
		if f := gomega.InterceptGomegaFailure(func() { test(ctx, s, a) }); f != nil {
			failures = append(failures, fmt.Sprintf("%s (%s): %v", a.given.Name(), a.role, f))
		}
	}
	expectNone(failures, "hop %s, binding %s", s.hop.name, s.binding.Name)
}

// expectNone fails with every item, one per paragraph, as plain text.
func expectNone(items []string, format string, args ...any) {
	ginkgo.GinkgoHelper()
	if len(items) > 0 {
		gomega.Expect(items).To(failure(fmt.Sprintf(format, args...) + ":\n" + strings.Join(items, "\n\n")))
	}
}

// failure is a matcher that never matches and says only its text.
type failure string

func (f failure) Match(any) (bool, error)          { return false, nil }
func (f failure) FailureMessage(any) string        { return string(f) }
func (f failure) NegatedFailureMessage(any) string { return string(f) }

var upgSyncedAndHealthy = upgradeCheck("UPG-001",
	"after a hop every application is Synced and Healthy again within the upgrade timeout",
	func(ctx context.Context, s *Suite, a *upgradeApp) {
		start := time.Now()
		a.in(ctx).Then().ExpectWithin(s.hop.timeout, dsl.SyncedAndHealthySince(s.hop.end, s.Env.Timeouts.Settle))
		observe("%s (%s): Synced and Healthy %.1fs after the hop (%.1fs waited)", a.given.Name(), a.role, time.Since(s.hop.end).Seconds(), time.Since(start).Seconds())
	})

var upgSameManifests = upgradeCheck("UPG-002",
	"a hop leaves every application's rendered manifests identical (tracking metadata and the plugin's record of its input aside)",
	func(ctx context.Context, s *Suite, a *upgradeApp) {
		after := &appSnapshot{}
		after.manifests, after.manifestsErr = renderedAfter(ctx, s, a)
		before, now := manifestHash(a.before), manifestHash(after)
		s.hop.log.hopApp(s.hop.index, a.given.Name(), func(h *reportv1.HopApp) { h.ManifestsAfter = now })
		observe("%s (%s): manifests %s before, %s after", a.given.Name(), a.role, short(before), short(now))
		gomega.Expect(a.before.manifestsErr).NotTo(gomega.HaveOccurred(), "generating the manifests on %s, before the hop", s.hop.from)
		gomega.Expect(after.manifestsErr).NotTo(gomega.HaveOccurred(), "generating the manifests on %s, after the hop", s.hop.to)
		diff := cmp.Diff(comparable(a.before.manifests), comparable(after.manifests))
		gomega.Expect(diff).To(gomega.BeEmpty(), "the manifests changed across the hop (-%s +%s)", s.hop.from, s.hop.to)
	})

var upgNothingRecreated = upgradeCheck("UPG-003",
	"a hop deletes, recreates or lets go of no managed resource: the same objects (UIDs unchanged), still managed once Synced, across a change of tracking method too",
	func(ctx context.Context, s *Suite, a *upgradeApp) {
		then := a.in(ctx).Then()
		// Automated sync acts on what the new version renders: judge once it has.
		then.ExpectWithin(s.hop.timeout, dsl.SettledSince(s.hop.end, s.Env.Timeouts.Settle))
		now, err := then.LiveInventory(a.before.managed)
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		app, err := then.App()
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		managed, err := then.ManagedObjects()
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		gone := unlisted(a.before.managed, managed)
		observe("%s (%s): %d managed resources before, %d after (sync %s)%s", a.given.Name(), a.role, len(a.before.managed), len(managed), app.Status.Sync.Status, orNone("; no longer listed as managed: ", gone))
		var problems []string
		if d := a.before.inventory.Diff(now); d != "" {
			problems = append(problems, "looked up in the cluster: "+d)
		}
		// A Synced application that no longer lists an object it managed has
		// let go of it: the object stays, and no prune will ever remove it.
		// (While the application cannot render, what it lists says nothing.)
		if app.Status.Sync.Status == v1alpha1.SyncStatusCodeSynced && len(gone) > 0 {
			problems = append(problems, "Synced, but no longer managing "+strings.Join(gone, ", ")+" (left in the cluster, never to be pruned)")
		}
		expectNone(problems, "the resources %s managed before the hop to %s", a.given.Name(), s.hop.to)
	})

// unlisted are the objects of before that after does not list.
func unlisted(before, after map[string]string) []string {
	var out []string
	for k := range before {
		if _, ok := after[k]; !ok {
			out = append(out, k)
		}
	}
	return sortedCopy(out)
}

func orNone(prefix string, items []string) string {
	if len(items) == 0 {
		return ""
	}
	return prefix + strings.Join(items, ", ")
}

var upgParametersKept = upgradeCheck("UPG-004",
	"a hop keeps spec.source.plugin (parameters, env) as it was, and the plugin's announcements unchanged",
	func(ctx context.Context, s *Suite, a *upgradeApp) {
		then := a.in(ctx).Then()
		app, err := then.App()
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		gomega.Expect(cmp.Diff(a.before.plugin, app.Spec.Source.Plugin)).To(gomega.BeEmpty(), "spec.source.plugin changed across the hop (-before +after)")
		gomega.Expect(a.before.announceErr).NotTo(gomega.HaveOccurred(), "the announcements on %s, before the hop", s.hop.from)
		anns, err := then.Announcements()
		gomega.Expect(err).NotTo(gomega.HaveOccurred(), "the announcements on %s, after the hop", s.hop.to)
		gomega.Expect(cmp.Diff(a.before.announcements, announcementJSON(anns))).To(gomega.BeEmpty(), "the announcements changed across the hop (-before +after)")
	})

var upgKnownChanges = Check{ID: "UPG-005", Area: Upgrade, Level: Core, AnyRole: upgradeRoles,
	Title:    "what a plugin receives, and the tracking of its resources, change across a hop only as documented; each such change is reported with its upstream reference",
	Upstream: knownChangesUpstream(),
	Test: func(ctx context.Context, s *Suite) {
		eachUpgradeApp(ctx, s, func(ctx context.Context, s *Suite, a *upgradeApp) {
			gomega.Expect(a.before.manifestsErr).NotTo(gomega.HaveOccurred(), "generating the manifests on %s, before the hop", s.hop.from)
			after, err := renderedAfter(ctx, s, a)
			gomega.Expect(err).NotTo(gomega.HaveOccurred(), "generating the manifests on %s, after the hop", s.hop.to)
			seen, problems := explainDifferences(s.hop.from, s.hop.to, sideOf(a.before.manifests), sideOf(after), a.before.plugin)
			for _, line := range seen {
				observe("%s (%s): expected difference: %s", a.given.Name(), a.role, line)
			}
			s.hop.log.hopApp(s.hop.index, a.given.Name(), func(h *reportv1.HopApp) { h.ExpectedDifferences = seen })
			expectNone(problems, "what the plugin received, or the tracking, changed across the hop")
		})
	}}

// renderedAfter are the application's manifests as the new version renders
// them: read once its hard refresh is done, since before v3.2 GetManifests
// ignores noCache and answers from the cache the refresh renewed.
func renderedAfter(ctx context.Context, s *Suite, a *upgradeApp) ([]string, error) {
	ginkgo.GinkgoHelper()
	then := a.in(ctx).Then()
	then.ExpectWithin(s.hop.timeout, dsl.RefreshedSince(s.hop.end))
	return then.Manifests(true)
}

// comparable is manifests as UPG-002 compares them: YAML, sorted, without
// Argo CD's tracking metadata (UPG-005 reports the change of method) and
// without the parameterized plugin's record of its input (what Argo CD
// sends may change by design; UPG-005 judges it).
func comparable(manifests []string) []string {
	var out []string
	for _, m := range manifests {
		obj := map[string]any{}
		if err := json.Unmarshal([]byte(m), &obj); err != nil {
			out = append(out, m)
			continue
		}
		meta, _ := obj["metadata"].(map[string]any)
		if obj["kind"] == "ConfigMap" && meta["name"] == sidecar.ReceivedConfigMap {
			continue
		}
		kube.DropTracking(obj)
		data, _ := yaml.Marshal(obj)
		out = append(out, string(data))
	}
	return sortedCopy(out)
}

const (
	trackingAnnotation = kube.TrackingAnnotation
	trackingLabel      = kube.TrackingLabel
)

// manifestHash is "sha256:<hex>" of the comparable manifests ("" when they
// could not be generated).
func manifestHash(s *appSnapshot) string {
	if s.manifestsErr != nil {
		return ""
	}
	sum := sha256.Sum256([]byte(strings.Join(comparable(s.manifests), "---\n")))
	return "sha256:" + hex.EncodeToString(sum[:])
}

func short(hash string) string {
	if hash == "" {
		return "(not generated)"
	}
	return strings.TrimPrefix(hash, "sha256:")[:12]
}

func announcementJSON(anns []*repoapiclient.ParameterAnnouncement) string {
	data, _ := json.MarshalIndent(AnnouncementsFromAPI(anns), "", "  ")
	return string(data)
}
