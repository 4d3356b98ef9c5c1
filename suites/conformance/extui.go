package conformance

import (
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"maps"
	"net/http"
	"path"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"

	"github.com/cmp-conformance/cmp-conformance/fixtures/dsl"
	"github.com/cmp-conformance/cmp-conformance/fixtures/extension"
	"github.com/cmp-conformance/cmp-conformance/fixtures/uipage"
	"github.com/cmp-conformance/cmp-conformance/internal/text"
)

// The UI checks load an extension's ui/extension*.js as Argo CD's UI
// does: served by the real argocd-server in its /extensions.js (from
// /tmp/extensions, where the installer puts it), loaded by headless
// Chromium. Argo CD's UI bundle cannot be built here (no npm), so the page
// is the harness's (uipage): it offers only the globals Argo CD's UI gives
// extensions (docs/developer-guide/extensions/ui-extensions.md: React,
// ReactDOM, Moment, extensionsAPI) and records what they do. Each
// observation says so.
const uiPageSaid = "judged on the harness's recording page (Argo CD's globals for extensions, not Argo CD's UI bundle), served by argocd-server with its /extensions.js"

// uiVersions: extensionsAPI and /tmp/extensions/<name>/extension*.js are
// 2.5's (#9834, whose docs say "Extension should not bundle the React
// library"); the legacy window.extensions of #7019 (2.2) came before.
const uiVersions = ">=2.5.0"

var uiUpstream = []string{"argoproj/argo-cd#9834", "argoproj/argo-cd#7019"}

// EXT-006: a file that throws while it loads registers nothing (on 3.6 a
// try around each file keeps the others; before, one stops every later
// file): the user sees no tab and no error.
var extUILoads = uiCheck(Check{
	ID:    "EXT-006",
	Title: "the UI extension loads in Argo CD's page without an error and registers at least one extension",
	Test: func(ctx context.Context, s *Suite) {
		r := uiRecord(ctx, s)
		var threw []string
		for _, e := range r.LoadErrors {
			threw = append(threw, e.Message)
		}
		gomega.Expect(threw).To(gomega.BeEmpty(), "loading its UI file threw")
		gomega.Expect(r.Registered).NotTo(gomega.BeEmpty(), "its UI file loaded and registered nothing through window.extensionsAPI (nor window.extensions.resources): Argo CD shows nothing of it")
	},
})

// EXT-007: a resource tab shows on the objects whose group and kind its
// patterns match (minimatch in the UI): one registered for a kind the
// extension does not declare shows where no health or action of it applies.
var extUIKinds = uiCheck(Check{
	ID:    "EXT-007",
	Title: "each resource tab the UI extension registers is for a kind the extension declares",
	NothingToJudge: func(e *extension.Extension) string {
		if why := withoutUI(e); why != "" {
			return why
		}
		if len(e.Kinds) == 0 {
			return "the extension declares no kind (<group>/<Kind>/) for its resource tabs to be judged against"
		}
		return ""
	},
	Test: func(ctx context.Context, s *Suite) {
		r, ext := uiRecord(ctx, s), s.Extension()
		tabs := 0
		for _, g := range r.Registered {
			if g.API != "registerResourceExtension" && !strings.HasPrefix(g.API, "extensions.resources") {
				continue
			}
			tabs++
			k, ok := declaredKind(ext.Kinds, g.Fields["group"], g.Fields["kind"])
			gomega.Expect(ok).To(gomega.BeTrue(), "its resource tab %q is registered for group %q kind %q, which is no kind the extension declares (%s)",
				g.Fields["title"], g.Fields["group"], g.Fields["kind"], kindList(ext.Kinds))
			observe("resource tab %q (%s/%s) is for %s", g.Fields["title"], g.Fields["group"], g.Fields["kind"], k)
		}
		if tabs == 0 {
			observe("it registers no resource tab (%d other extensions): nothing is shown on objects", len(r.Registered))
		}
	},
})

// EXT-008: Argo CD's UI gives extensions its React (window.React); an
// extension that brings its own makes elements the UI's React does not
// render (two Reacts: "Invalid hook call", objects not valid as a child).
var extUIReact = uiCheck(Check{
	ID:    "EXT-008",
	Title: "the UI extension's components render with the React of Argo CD's page: it bundles no React of its own",
	Test: func(ctx context.Context, s *Suite) {
		r := uiRecord(ctx, s)
		if len(r.Registered) == 0 {
			observe("it registered no component, so nothing rendered with any React (EXT-006 judges that)")
			return
		}
		judged := 0
		for _, g := range r.Registered {
			name := fmt.Sprintf("%s %q", g.API, g.Fields["title"])
			gomega.Expect(g.ForeignElements).To(gomega.BeZero(), "%s rendered %d element(s) made by a React of its own (%s), not by the page's window.React",
				name, g.ForeignElements, strings.Join(g.ForeignKinds, ", "))
			if g.RenderError != "" {
				observe("%s: rendering it here threw (the page's React is a recording stand-in, so this is not held against it): %s", name, g.RenderError)
			}
			if g.PageElements > 0 || g.RenderError == "" {
				judged++
			}
			observe("%s: %d elements through the page's React", name, g.PageElements)
		}
		if judged == 0 {
			ginkgo.Skip("cannot judge: no component of it rendered here (see the errors above); whether it bundles React is not known")
		}
	},
})

// EXT-009: an extension is code running in the user's session at Argo CD's
// origin: what it fetches elsewhere leaks what the user sees, and fails
// where the UI is reached offline or behind a proxy.
var extUIOrigin = uiCheck(Check{
	ID:    "EXT-009",
	Title: "the UI extension requests nothing outside Argo CD's origin",
	Test: func(ctx context.Context, s *Suite) {
		r := uiRecord(ctx, s)
		var asked []string
		for _, b := range r.Blocked {
			asked = append(asked, fmt.Sprintf("%s (%s)", b.URL, b.Directive))
		}
		gomega.Expect(asked).To(gomega.BeEmpty(), "it asked for what is outside Argo CD's origin (blocked here, nothing left this host)")
		observe("no request outside Argo CD's origin while it loaded and its %d components rendered (effects run, %s of timers)", len(r.Registered), uiBudget)
	},
})

// EXT-010: Argo CD's UI is not one API across versions (its React 16 up
// to 3.4, 19 from 3.5, without ReactDOM.render; ReactJSXRuntime set only
// from 3.5): an extension built for one fails on another. What the page
// does not offer but another version does is recorded when read, and
// blamed only for an error that names it, so feature detection passes.
var extUIVersion = uiCheck(Check{
	ID:    "EXT-010",
	Title: "the UI extension fails on nothing that this Argo CD version's UI does not offer (globals, React and react-dom exports, extensionsAPI functions)",
	Test: func(ctx context.Context, s *Suite) {
		r := uiRecord(ctx, s)
		var missing []string
		for _, e := range r.LoadErrors {
			if len(e.Absent) > 0 {
				missing = append(missing, fmt.Sprintf("loading threw %q, naming %s", text.Clip(e.Message, 200), strings.Join(e.Absent, ", ")))
			}
		}
		for _, g := range r.Registered {
			if g.RenderError != "" && len(g.Absent) > 0 {
				missing = append(missing, fmt.Sprintf("its %s %q threw %q while rendering, naming %s", g.API, g.Fields["title"], text.Clip(g.RenderError, 200), strings.Join(g.Absent, ", ")))
			}
		}
		var read []string
		for _, u := range r.AbsentReads {
			read = append(read, u.Name)
		}
		if len(read) > 0 {
			observe("read what Argo CD %s's UI does not offer (another version's does): %s", s.ArgoCDVersion, strings.Join(read, ", "))
		}
		gomega.Expect(missing).To(gomega.BeEmpty(), "it uses what Argo CD %s's UI does not offer (React %s, react-dom %s)", s.ArgoCDVersion, r.Offered.React, r.Offered.ReactDOM)
	},
})

// uiCheck fills in what the UI checks share: Core checks of the extension
// profile that need the UI page, from the version of #9834, judging nothing
// of an extension without UI files unless told otherwise.
func uiCheck(c Check) Check {
	c.Area, c.Level, c.Versions, c.Roles = Extensions, Core, uiVersions, []Role{RoleExtension}
	c.Needs, c.Upstream = []dsl.Ability{dsl.AbilityUIExtensions}, uiUpstream
	if c.NothingToJudge == nil {
		c.NothingToJudge = withoutUI
	}
	return c
}

var withoutUI = func(e *extension.Extension) string {
	if len(e.UI) == 0 {
		return "the extension has no UI file (ui/extension*.js)"
	}
	return ""
}

// uiBudget is the page's virtual time: timers and late registrations.
const uiBudget = 3 * time.Second

var uiRecords sync.Map // version, page and folder -> *uiResult

type uiResult struct {
	once sync.Once
	r    *uipage.Record
	err  error
	why  string
}

// uiRecord is what the page recorded of the subject's UI files, loaded
// alone: once per extension and process, as the four checks judge one load.
func uiRecord(ctx context.Context, s *Suite) *uipage.Record {
	ginkgo.GinkgoHelper()
	ext := s.Extension()
	folder := s.Env.UIFolders[ext.Dir]
	gomega.Expect(folder).NotTo(gomega.BeEmpty(), "the extension's UI files were not installed with Argo CD")
	v, _ := uiRecords.LoadOrStore(s.ArgoCDVersion+"\x00"+s.Env.UIPage+"\x00"+folder, &uiResult{})
	res := v.(*uiResult)
	res.once.Do(func() {
		var files map[string][]byte
		if files, res.err = ext.UIContents(); res.err != nil {
			return
		}
		if res.why, res.err = servedAlone(ctx, s.Env.ServerURL, folder, files); res.err != nil || res.why != "" {
			return
		}
		res.r, res.err = uipage.OpenFor(ctx, s.Env.UIPage, folder, ginkgo.GinkgoT().TempDir(), uiBudget)
	})
	gomega.Expect(res.err).NotTo(gomega.HaveOccurred())
	if res.why != "" {
		ginkgo.Skip("cannot judge: " + res.why)
	}
	observe("%s, offering this version's globals (%s); %s: %d files, %d lines of extensions.js", uiPageSaid, res.r.Offered, path.Join("/tmp/extensions", folder), len(ext.UI), res.r.Served)
	gomega.Expect(res.r.Loaded).To(gomega.BeTrue(), "the page never got to render the components: %s", res.r.PageError)
	gomega.Expect(res.r.PageError).To(gomega.BeEmpty(), "the recording page itself failed (the harness's fault, or an extension that broke the page's own script)")
	return res.r
}

// servedAlone says why folder's files cannot be judged alone ("" when
// they can): the page runs, of the extensions.js argocd-server serves, the
// lines from each "// source: /tmp/extensions/<folder>/" mark to the next
// mark, so a line of a file that starts as another folder's mark would cut
// the rest of the file out of its own judgement. Each file must be whole
// in what the page runs.
func servedAlone(ctx context.Context, server, folder string, files map[string][]byte) (string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, server+"/extensions.js", nil)
	if err != nil {
		return "", err
	}
	resp, err := serverClient.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	if err != nil || resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("argocd-server's /extensions.js: %s (%v)", resp.Status, err)
	}
	var kept []string
	keep, marks := false, 0
	for _, l := range strings.Split(string(body), "\n") {
		if m := sourceMark.FindStringSubmatch(l); m != nil {
			keep = m[1] == folder
			if keep {
				marks++
			}
		}
		if keep {
			kept = append(kept, l)
		}
	}
	if marks < len(files) {
		return "", fmt.Errorf("argocd-server's /extensions.js holds %d of the extension's %d UI files", marks, len(files))
	}
	// A file's last newline ends its last line: before 3.6 nothing follows
	// it but the next file's mark, which the page leaves out.
	run := strings.Join(kept, "\n") + "\n"
	for _, name := range slices.Sorted(maps.Keys(files)) {
		if !strings.Contains(run, strings.TrimSuffix(string(files[name]), "\n")+"\n") {
			return fmt.Sprintf("%s is not whole in what the page runs for it: a line of it starts as argocd-server's \"// source: /tmp/extensions/...\" marks do, which the page splits /extensions.js at", name), nil
		}
	}
	return "", nil
}

// serverClient reaches argocd-server on 127.0.0.1, over TLS with the
// certificate it made itself where it serves TLS (kind).
var serverClient = &http.Client{Timeout: time.Minute, Transport: &http.Transport{
	TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}} // #nosec G402 -- argocd-server's own certificate, on 127.0.0.1

// sourceMark is the line argocd-server writes before each file it serves.
var sourceMark = regexp.MustCompile(`^// source: /tmp/extensions/([^/]+)/`)

// declaredKind is the first declared kind a tab registered for (group,
// kind) shows on: the UI matches the registration's patterns against an
// object's group and kind; a declared wildcard kind covers a registration
// whose literal group and kind it matches.
func declaredKind(kinds []extension.Kind, group, kind string) (string, bool) {
	for _, k := range kinds {
		if globMatch(group, k.Group) && globMatch(kind, k.Kind) || (k.Wildcard && globMatch(k.Group, group) && globMatch(k.Kind, kind)) {
			return kindName(k), true
		}
	}
	return "", false
}

// globMatch is minimatch's answer for the patterns registrations use (*,
// ?, [...]); a pattern path.Match cannot read matches only itself.
func globMatch(pattern, name string) bool {
	ok, err := path.Match(pattern, name)
	return ok || (err != nil && pattern == name)
}

func kindName(k extension.Kind) string {
	if k.Group == "" {
		return k.Kind
	}
	return k.Group + "/" + k.Kind
}

func kindList(kinds []extension.Kind) string {
	var out []string
	for _, k := range kinds {
		out = append(out, kindName(k))
	}
	return strings.Join(out, ", ")
}
