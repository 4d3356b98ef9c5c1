package conformance

import (
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/cmp-conformance/cmp-conformance/reports/v1alpha1"
)

var checkID = regexp.MustCompile(`^[A-Z]+-[0-9]{3}$`)

// upstreamRef is owner/repo#N, the form the report links.
var upstreamRef = regexp.MustCompile(`^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+#[0-9]+$`)

func TestRegistry(t *testing.T) {
	all := All()
	if len(all) == 0 {
		t.Fatal("All() is empty")
	}
	areas := map[Area]bool{Smoke: true, Announcements: true, Environment: true, Security: true, Pruning: true,
		Local: true, Service: true, Faults: true, Helm: true, Upgrade: true, Discover: true, Initializing: true, Files: true, Credentials: true, Hydrator: true, Plugin: true, Extensions: true, Output: true, Customizations: true}
	levels := map[v1alpha1.Level]bool{Core: true, Extended: true, Provisional: true}
	features := map[Feature]bool{Discovery: true, StaticParameters: true, DynamicParameters: true, PreserveFileMode: true, ProvideGitCreds: true, InitCommand: true,
		ExpectedOutput: true, FailingInput: true, TimeBudget: true, ParameterOutput: true, Parameters: true, Image: true}
	roles := map[Role]bool{RolePlain: true, RoleParameterized: true, RoleFaultyDynamic: true, RoleService: true, RoleFaultyGenerate: true, RoleHelm: true,
		RoleFiles: true, RolePreserveFileMode: true, RoleGitCreds: true, RoleInit: true, RoleDiscoverFileName: true, RoleDiscoverGlob: true, RoleDiscoverCommand: true, RoleNamedOnly: true, RoleSubject: true, RoleExtension: true, RoleCustomizations: true}
	seen := map[string]bool{}
	for i, c := range all {
		if !checkID.MatchString(c.ID) {
			t.Errorf("check %d: ID %q does not match %s", i, c.ID, checkID)
		}
		if seen[c.ID] {
			t.Errorf("ID %s is listed twice", c.ID)
		}
		seen[c.ID] = true
		if c.Title == "" {
			t.Errorf("%s has no Title", c.ID)
		}
		if !areas[c.Area] {
			t.Errorf("%s: Area %q is not one of the catalogue's areas", c.ID, c.Area)
		}
		if !levels[c.Level] {
			t.Errorf("%s: Level %q is not Core, Extended or Provisional", c.ID, c.Level)
		}
		if c.Test == nil {
			t.Errorf("%s has no Test", c.ID)
		}
		if len(c.Roles) == 0 && len(c.AnyRole) == 0 {
			t.Errorf("%s uses no role", c.ID)
		}
		for _, r := range append(slices.Clone(c.Roles), c.AnyRole...) {
			if !roles[r] {
				t.Errorf("%s: unknown role %q", c.ID, r)
			}
		}
		for _, f := range c.Requires {
			if !features[f] {
				t.Errorf("%s: unknown feature %q", c.ID, f)
			}
		}
		if c.Level == Provisional && len(c.Upstream) == 0 {
			t.Errorf("%s is Provisional but names no upstream issue", c.ID)
		}
		for _, u := range c.Upstream {
			if !upstreamRef.MatchString(u) {
				t.Errorf("%s: upstream %q is not owner/repo#N", c.ID, u)
			}
		}
		// The constraint must parse: a bad one would error at run time.
		if _, err := c.AppliesTo("v3.2.11"); err != nil {
			t.Errorf("%s: %v", c.ID, err)
		}
	}
}

func TestRegistryIsFresh(t *testing.T) {
	// Callers may filter or reorder what All returns; that must not change the catalogue.
	a := All()
	a[0] = Check{ID: "CHANGED-001"}
	if All()[0].ID == "CHANGED-001" {
		t.Error("All() returns a shared slice: a caller's change leaks into the catalogue")
	}
}

// The parameterized role's static contract and the reference plugins'
// plugin.yaml must say the same thing: ANN-001 judges Argo CD by the contract.
// The service plugin is the sidecar plugin under another name: apart from
// its name and discovery marker, the two files must be the same.
func TestStaticContractMatchesReferencePlugins(t *testing.T) {
	type config struct {
		Metadata struct {
			Name string `json:"name"`
		} `json:"metadata"`
		Spec struct {
			Discover struct {
				FileName string `json:"fileName"`
			} `json:"discover"`
			Parameters struct {
				Static []Announcement `json:"static"`
			} `json:"parameters"`
		} `json:"spec"`
	}
	var stripped []string
	for _, plugin := range []string{"sidecar", "service"} {
		data, err := os.ReadFile(filepath.Join("..", "..", "plugins", plugin, "plugin.yaml"))
		if err != nil {
			t.Fatal(err)
		}
		var cfg config
		if err := yaml.Unmarshal(data, &cfg); err != nil {
			t.Fatal(err)
		}
		if got, want := cfg.Spec.Parameters.Static, StaticContract(); !reflect.DeepEqual(got, want) {
			t.Fatalf("plugins/%s/plugin.yaml static = %+v\nwant the contract %+v", plugin, got, want)
		}
		body := string(data[strings.Index(string(data), "apiVersion:"):])
		body = strings.Replace(body, cfg.Metadata.Name, "NAME", 1)
		stripped = append(stripped, strings.Replace(body, cfg.Spec.Discover.FileName, "MARKER", 1))
	}
	if stripped[0] != stripped[1] {
		t.Errorf("plugins/service/plugin.yaml differs from plugins/sidecar/plugin.yaml beyond name and marker")
	}
}
