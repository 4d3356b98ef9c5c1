package conformance

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"
	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"

	"github.com/cmp-conformance/cmp-conformance/fixtures/argocd"
	"github.com/cmp-conformance/cmp-conformance/fixtures/dsl"
	reportv1 "github.com/cmp-conformance/cmp-conformance/reports/v1alpha1"
)

// UpgradeRun makes Register build an upgrade run rather than the catalogue:
// applications of every upgrade role are created on Path[0], then each hop
// moves Argo CD to the next version and the UPG checks run against every
// binding's applications.
type UpgradeRun struct {
	// Path is the versions in order; the environment runs Path[0].
	Path []string
	// Switch moves the environment to a version; afterwards Config.Env()
	// must describe that version (ArgoCDVersion, CLIPath).
	Switch func(ctx context.Context, to string) (argocd.Hop, error)
	// Timeout bounds each application's return to Synced and Healthy after
	// a hop (the "named timeout" of UPG-001).
	Timeout time.Duration
	// Record receives the report's upgrade section each time it grows, so an
	// interrupted run keeps what it saw.
	Record func(reportv1.Upgrade)
}

// upgradeRoles are the roles whose applications an upgrade run carries.
var upgradeRoles = []Role{RoleParameterized, RoleHelm, RoleService}

// upgradeApp is one application created on the first version.
type upgradeApp struct {
	binding string
	role    Role
	given   *dsl.Context
	// before is the application as it was before the current hop.
	before *appSnapshot
}

// in is the application's When part in ctx (the spec running now).
func (a *upgradeApp) in(ctx context.Context) *dsl.Actions { return a.given.In(ctx).When() }

// appSnapshot is what a hop must not change, taken on one side of it.
type appSnapshot struct {
	manifests     []string
	manifestsErr  error
	plugin        *v1alpha1.ApplicationSourcePlugin
	announcements string
	announceErr   error
	// managed are the objects the application managed (Kind/name to
	// apiVersion), inventory their UIDs.
	managed   map[string]string
	inventory dsl.Inventory
}

// hopRun is one hop as its checks see it.
type hopRun struct {
	name, from, to string
	index          int
	// end is when the new version was up: its status counts from then.
	end     time.Time
	timeout time.Duration
	apps    []*upgradeApp
	log     *upgradeLog
}

func (h *hopRun) appsOf(binding string) []*upgradeApp {
	var out []*upgradeApp
	for _, a := range h.apps {
		if a.binding == binding {
			out = append(out, a)
		}
	}
	return out
}

// upgradeLog keeps the report's upgrade section.
type upgradeLog struct {
	mu     sync.Mutex
	u      reportv1.Upgrade
	record func(reportv1.Upgrade)
}

func (l *upgradeLog) update(f func(u *reportv1.Upgrade)) {
	l.mu.Lock()
	defer l.mu.Unlock()
	f(&l.u)
	if l.record != nil {
		out := l.u
		out.Hops = slices.Clone(l.u.Hops)
		for i := range out.Hops {
			out.Hops[i].Apps = slices.Clone(out.Hops[i].Apps)
		}
		l.record(out)
	}
}

// hopApp updates the record of one application on hop index.
func (l *upgradeLog) hopApp(index int, name string, f func(a *reportv1.HopApp)) {
	l.update(func(u *reportv1.Upgrade) {
		h := &u.Hops[index]
		for i := range h.Apps {
			if h.Apps[i].Name == name {
				f(&h.Apps[i])
				return
			}
		}
		h.Apps = append(h.Apps, reportv1.HopApp{Name: name})
		f(&h.Apps[len(h.Apps)-1])
	})
}

// registerUpgrade builds the upgrade run's tree: one Ordered container (the
// hops happen once, for every binding), a container per hop, and in it the
// UPG checks of every binding. A failed check does not stop the run: the next
// hop still has something to say.
func registerUpgrade(cfg Config, checks []Check, specs map[specKey]specInfo) {
	up := cfg.Upgrade
	log := &upgradeLog{u: reportv1.Upgrade{Path: up.Path, TimeoutSeconds: up.Timeout.Seconds()}, record: up.Record}
	var apps []*upgradeApp
	ginkgo.Describe("upgrade", ginkgo.Ordered, ginkgo.ContinueOnFailure, func() {
		ginkgo.BeforeAll(func(ctx ginkgo.SpecContext) {
			apps = plantApps(ctx, cfg.Env(), cfg.Bindings, log)
		})
		for i := 1; i < len(up.Path); i++ {
			hop := &hopRun{name: up.Path[i-1] + " -> " + up.Path[i], from: up.Path[i-1], to: up.Path[i], index: i - 1, timeout: up.Timeout, log: log}
			ginkgo.Describe("hop "+hop.name, func() {
				ginkgo.BeforeAll(func(ctx ginkgo.SpecContext) {
					hop.apps = apps
					runHop(ctx, cfg.Env(), up, hop)
				})
				for _, b := range cfg.Bindings {
					ginkgo.Describe(b.Name, func() {
						for _, c := range checks {
							if !b.Has(c) {
								continue
							}
							leaf := leafText(c)
							specs[specKey{b.Name, hop.name, leaf}] = specInfo{binding: b, check: c, hop: hop.name}
							ginkgo.It(leaf, ginkgo.Label(c.Labels()...), func(ctx ginkgo.SpecContext) {
								runCheckOn(ctx, cfg.Env(), b, c, hop)
							})
						}
					})
				}
			})
		}
	})
}

// plantApps creates, on the first version, an application for every upgrade
// role of every binding, with parameters and plugin env set, and waits until
// all are Synced and Healthy. They live until the run ends.
func plantApps(ctx context.Context, env *dsl.Env, bindings []Binding, log *upgradeLog) []*upgradeApp {
	ginkgo.GinkgoHelper()
	var apps []*upgradeApp
	start := time.Now()
	for _, b := range bindings {
		for _, role := range upgradeRoles {
			sub, ok := b.Subjects[role]
			if !ok || sub.Unavailable != "" {
				continue
			}
			c := upgradeGiven(NewSuite(env, b), dsl.Given(ctx, env), role)
			c.When().CreateApp().Then().Expect(dsl.NoActionError())
			apps = append(apps, &upgradeApp{binding: b.Name, role: role, given: c})
			log.update(func(u *reportv1.Upgrade) {
				u.Apps = append(u.Apps, reportv1.UpgradeApp{Name: c.Name(), Binding: b.Name, Role: string(role), Plugin: sub.Plugin.FullName()})
			})
		}
	}
	for _, a := range apps {
		a.in(ctx).Then().ExpectWithin(env.Timeouts.AppSynced, dsl.SyncedAndHealthySince(start, env.Timeouts.Settle))
	}
	return apps
}

// upgradeGiven is the application of a role: the parameterized contract
// (also served over the network) with parameters of every kind, an empty one
// and an empty plugin env entry among them, whose treatment changed in v3.0;
// the Helm plugin with layered values and typed parameters. All are synced
// automatically, as production applications are.
func upgradeGiven(s *Suite, c *dsl.Context, role Role) *dsl.Context {
	c = c.NamePrefix("upg-" + string(role)).Plugin(s.Plugin(role).FullName()).Automated()
	if role == RoleHelm {
		// The Helm plugin discovers the chart by its Chart.yaml.
		return c.Path("helm-plain").Parameters(layered.plugin()...)
	}
	// With the marker its discovery asks for: Argo CD still matches a named
	// plugin that declares discovery (#18053).
	return s.DiscoveredBy(c, role).Path("params-app").
		Parameters(str("string-param", "upgrade $(value) 'quoted'"), arr("array-param", "a", "b"),
			mp("map-param", map[string]string{"key.one": "one", "key-two": "two"}), str("empty-param", "")).
		PluginEnv(map[string]string{"MODE": "upgrade", "EMPTY": ""})
}

// runHop takes every application's snapshot, switches Argo CD to the hop's
// version, and asks each application for a hard refresh: the new version
// renders each itself now (it would at the next commit; a render cached by
// the old version says nothing of the new one), and its compare happens now
// rather than within timeout.reconciliation.
func runHop(ctx context.Context, env *dsl.Env, up *UpgradeRun, hop *hopRun) {
	ginkgo.GinkgoHelper()
	hop.log.update(func(u *reportv1.Upgrade) {
		u.Hops = append(u.Hops, reportv1.Hop{Name: hop.name, From: hop.from, To: hop.to})
	})
	start := time.Now()
	for _, a := range hop.apps {
		a.before = takeSnapshot(a.in(ctx).Then())
		hash := manifestHash(a.before)
		hop.log.hopApp(hop.index, a.given.Name(), func(h *reportv1.HopApp) { h.ManifestsBefore = hash })
	}
	snapshotted := reportv1.Phase{Name: "applications read before the hop", Seconds: time.Since(start).Seconds()}
	sw, err := up.Switch(ctx, hop.to)
	hop.log.update(func(u *reportv1.Upgrade) {
		h := &u.Hops[hop.index]
		h.Seconds = sw.Seconds
		h.Phases = append(h.Phases, snapshotted)
		for _, p := range sw.Phases {
			h.Phases = append(h.Phases, reportv1.Phase{Name: p.Name, Seconds: p.Seconds})
		}
		if err != nil {
			h.Error = err.Error()
		}
	})
	gomega.Expect(err).NotTo(gomega.HaveOccurred(), "switching Argo CD from %s to %s", hop.from, hop.to)
	hop.end = time.Now()
	defer func() {
		refreshed := reportv1.Phase{Name: "hard refresh asked of every application", Seconds: time.Since(hop.end).Seconds()}
		hop.log.update(func(u *reportv1.Upgrade) { u.Hops[hop.index].Phases = append(u.Hops[hop.index].Phases, refreshed) })
	}()
	for _, a := range hop.apps {
		name, hard := a.given.Name(), string(v1alpha1.RefreshTypeHard)
		// The API server has just started: its first answers may fail.
		gomega.Eventually(ctx, func() error {
			// Bounded per call: a call on a dead connection must not hang the run.
			_, answered, err := env.RefreshApp(ctx, name, hard, env.Timeouts.Settle)
			if err == nil && !answered {
				err = fmt.Errorf("not answered within %s", env.Timeouts.Settle)
			}
			return err
		}).WithTimeout(env.Timeouts.Refresh).WithPolling(env.Timeouts.Poll*5).Should(gomega.Succeed(), "refreshing %s after the hop", name)
	}
}

// takeSnapshot reads what a hop must not change. Errors are kept, not
// raised: a witness that cannot render is for the checks to judge.
func takeSnapshot(c *dsl.Consequences) *appSnapshot {
	ginkgo.GinkgoHelper()
	s := &appSnapshot{}
	s.manifests, s.manifestsErr = c.Manifests(true)
	app, err := c.App()
	gomega.Expect(err).NotTo(gomega.HaveOccurred(), "reading application %s", c.Actions().Context().Name())
	s.plugin = app.Spec.Source.Plugin.DeepCopy()
	anns, err := c.Announcements()
	s.announceErr = err
	if err == nil {
		s.announcements = announcementJSON(anns)
	}
	s.managed, err = c.ManagedObjects()
	gomega.Expect(err).NotTo(gomega.HaveOccurred(), "listing what %s manages", app.Name)
	s.inventory, err = c.LiveInventory(s.managed)
	gomega.Expect(err).NotTo(gomega.HaveOccurred(), "reading what %s manages", app.Name)
	return s
}
