package v1alpha1

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

// loadSchema parses the embedded schema into generic JSON values.
func loadSchema(t *testing.T) map[string]any {
	t.Helper()
	var root map[string]any
	if err := json.Unmarshal(Schema(), &root); err != nil {
		t.Fatalf("schema.json is not valid JSON: %v", err)
	}
	return root
}

// resolve follows a local "$ref" ("#/$defs/Name") to its definition.
func resolve(t *testing.T, root, node map[string]any, path string) map[string]any {
	t.Helper()
	ref, ok := node["$ref"].(string)
	if !ok {
		return node
	}
	name, ok := strings.CutPrefix(ref, "#/$defs/")
	if !ok {
		t.Fatalf("%s: unsupported $ref %q", path, ref)
	}
	defs, _ := root["$defs"].(map[string]any)
	def, ok := defs[name].(map[string]any)
	if !ok {
		t.Fatalf("%s: $ref %q names no definition", path, ref)
	}
	return resolve(t, root, def, path)
}

// jsonField returns the JSON name of a struct field and whether it is
// omitempty; name is "" for fields encoding/json skips.
func jsonField(f reflect.StructField) (name string, omitempty bool) {
	if !f.IsExported() {
		return "", false
	}
	tag := f.Tag.Get("json")
	if tag == "-" {
		return "", false
	}
	name, opts, _ := strings.Cut(tag, ",")
	if name == "" {
		name = f.Name
	}
	return name, slices.Contains(strings.Split(opts, ","), "omitempty")
}

// pathEnums lists the Go constants of plain string fields whose schema is an
// enum, keyed by the path walk gives them.
var pathEnums = map[string][]string{
	"$.selfTest[].expected": {ExpectFail, ExpectPass},
	"$.summary.verdict":     {VerdictPassed, VerdictFailed, VerdictPartial, VerdictIncomplete},
}

// enumValues lists the Go constants of an enumerated type (or of the field at
// path), so the schema's enum cannot drift from the code.
func enumValues(typ reflect.Type, path string) ([]string, bool) {
	if values, ok := pathEnums[path]; ok {
		return values, true
	}
	switch typ {
	case reflect.TypeFor[State]():
		return []string{string(StatePassed), string(StateFailed), string(StateNotSupported), string(StateNotApplicable), string(StateSkipped)}, true
	case reflect.TypeFor[Level]():
		return []string{string(LevelCore), string(LevelExtended), string(LevelProvisional)}, true
	}
	return nil, false
}

// walk asserts that schema node describes Go type typ, in both directions:
// every JSON field of typ is a schema property and every schema property is a
// JSON field of typ.
func walk(t *testing.T, root, node map[string]any, typ reflect.Type, path string) {
	t.Helper()
	node = resolve(t, root, node, path)
	if typ.Kind() == reflect.Pointer {
		// walkStruct has checked that the field is omitempty, so nil is
		// omitted rather than encoded as null.
		typ = typ.Elem()
	}
	if typ == reflect.TypeFor[time.Time]() {
		if node["type"] != "string" || node["format"] != "date-time" {
			t.Errorf("%s: time.Time must be a date-time string, schema has %v", path, node)
		}
		return
	}
	want := map[reflect.Kind]string{
		reflect.Struct: "object", reflect.Map: "object", reflect.Slice: "array",
		reflect.String: "string", reflect.Int: "integer", reflect.Float64: "number",
		reflect.Bool: "boolean",
	}[typ.Kind()]
	if want == "" {
		t.Fatalf("%s: the test does not know Go kind %s; extend it", path, typ.Kind())
	}
	if node["type"] != want {
		t.Errorf("%s: schema type %v, Go type %s wants %q", path, node["type"], typ, want)
	}
	if values, ok := enumValues(typ, path); ok {
		var got []string
		for _, v := range asSlice(node["enum"]) {
			got = append(got, v.(string))
		}
		if !slices.Equal(got, values) {
			t.Errorf("%s: schema enum %v, Go constants %v", path, got, values)
		}
	}
	switch typ.Kind() {
	case reflect.Slice:
		items, ok := node["items"].(map[string]any)
		if !ok {
			t.Errorf("%s: array without items", path)
			return
		}
		walk(t, root, items, typ.Elem(), path+"[]")
	case reflect.Map:
		keys, ok := node["propertyNames"].(map[string]any)
		if !ok {
			t.Errorf("%s: map without propertyNames", path)
		} else {
			walk(t, root, keys, typ.Key(), path+"{key}")
		}
		values, ok := node["additionalProperties"].(map[string]any)
		if !ok {
			t.Errorf("%s: map without an additionalProperties schema", path)
			return
		}
		walk(t, root, values, typ.Elem(), path+"{}")
	case reflect.Struct:
		walkStruct(t, root, node, typ, path)
	}
}

func walkStruct(t *testing.T, root, node map[string]any, typ reflect.Type, path string) {
	t.Helper()
	if node["additionalProperties"] != false {
		t.Errorf("%s: objects must set additionalProperties: false so typos are caught", path)
	}
	props, _ := node["properties"].(map[string]any)
	fields := map[string]bool{} // JSON name -> omitempty
	for f := range typ.Fields() {
		name, omitempty := jsonField(f)
		if name == "" {
			continue
		}
		fields[name] = omitempty
		if f.Type.Kind() == reflect.Pointer && !omitempty {
			t.Errorf("%s: pointer field %s.%s must be omitempty, or nil encodes as null", path, typ.Name(), f.Name)
		}
		sub, ok := props[name].(map[string]any)
		if !ok {
			t.Errorf("%s: Go field %s.%s (%q) is missing from the schema", path, typ.Name(), f.Name, name)
			continue
		}
		walk(t, root, sub, f.Type, path+"."+name)
	}
	for name := range props {
		if _, ok := fields[name]; !ok {
			t.Errorf("%s: schema property %q has no Go field in %s", path, name, typ.Name())
		}
	}
	for _, r := range asSlice(node["required"]) {
		name := r.(string)
		omitempty, ok := fields[name]
		switch {
		case !ok:
			t.Errorf("%s: required %q is not a field", path, name)
		case omitempty:
			t.Errorf("%s: required %q is omitempty in Go, so valid output could lack it", path, name)
		}
	}
}

func asSlice(v any) []any {
	s, _ := v.([]any)
	return s
}

func TestSchemaMatchesGoTypes(t *testing.T) {
	root := loadSchema(t)
	if got := root["$schema"]; got != "https://json-schema.org/draft/2020-12/schema" {
		t.Errorf("$schema = %v, want draft 2020-12", got)
	}
	walk(t, root, root, reflect.TypeFor[ConformanceReport](), "$")

	props := root["properties"].(map[string]any)
	for name, want := range map[string]string{"apiVersion": APIVersion, "kind": Kind} {
		if got := props[name].(map[string]any)["const"]; got != want {
			t.Errorf("%s const = %v, want %q", name, got, want)
		}
	}
}

func TestSchemaRequiredFields(t *testing.T) {
	root := loadSchema(t)
	for _, path := range []string{
		"apiVersion", "kind",
		"environment.runtime", "environment.argocdVersion",
		"environment.kubernetesVersion", "environment.binaries",
		"results[].id", "results[].area", "results[].level",
		"results[].state", "results[].durationSeconds",
		"timings.bringUpSeconds", "timings.suiteSeconds",
	} {
		t.Run(path, func(t *testing.T) {
			node := root
			parts := strings.Split(path, ".")
			for i, part := range parts {
				name, isArray := strings.CutSuffix(part, "[]")
				if !slices.Contains(asSlice(node["required"]), any(name)) {
					t.Fatalf("%q is not required at %s", name, strings.Join(parts[:i], "."))
				}
				props, _ := node["properties"].(map[string]any)
				next, ok := props[name].(map[string]any)
				if !ok {
					t.Fatalf("%q has no property schema", name)
				}
				node = resolve(t, root, next, path)
				if isArray {
					items, ok := node["items"].(map[string]any)
					if !ok {
						t.Fatalf("%q is not an array with items", name)
					}
					node = resolve(t, root, items, path)
				}
			}
		})
	}
}

func TestSchemaReturnsCopy(t *testing.T) {
	a := Schema()
	a[0] = 'X'
	if b := Schema(); b[0] == 'X' {
		t.Fatal("Schema() exposes the embedded bytes; callers could corrupt it")
	}
}

// schemaAt returns the schema node at a walk-style path such as
// "$.selfTest[].expected", and the node of the object that holds its last
// property (for checking "required").
func schemaAt(t *testing.T, root map[string]any, path string) (node, parent map[string]any) {
	t.Helper()
	node = root
	rest, ok := strings.CutPrefix(path, "$.")
	if !ok {
		t.Fatalf("path %q does not start with $.", path)
	}
	for part := range strings.SplitSeq(rest, ".") {
		name, isArray := strings.CutSuffix(part, "[]")
		parent = node
		props, _ := node["properties"].(map[string]any)
		next, ok := props[name].(map[string]any)
		if !ok {
			t.Fatalf("%s: no property %q", path, name)
		}
		node = resolve(t, root, next, path)
		if isArray {
			items, ok := node["items"].(map[string]any)
			if !ok {
				t.Fatalf("%s: %q is not an array with items", path, name)
			}
			node = resolve(t, root, items, path)
		}
	}
	return node, parent
}

// Every path in pathEnums must name a schema node, or a typo there would
// silently skip the enum check.
func TestSchemaPathEnumsExist(t *testing.T) {
	root := loadSchema(t)
	for path := range pathEnums {
		if node, _ := schemaAt(t, root, path); node["enum"] == nil {
			t.Errorf("%s: schema has no enum", path)
		}
	}
}

func TestSchemaOptionalAndRequired(t *testing.T) {
	root := loadSchema(t)
	tests := []struct {
		path     string
		required bool
	}{
		// Added fields are optional, so reports written before them stay valid.
		{"$.selfTest", false},
		{"$.summary.selfTest", false},
		{"$.environment.notes", false},
		{"$.metadata.command", false},
		{"$.metadata.suiteVersion", false},
		{"$.selfTest[].checkID", true},
		{"$.selfTest[].witness", true},
		{"$.selfTest[].expected", true},
		{"$.selfTest[].observed", true},
		{"$.selfTest[].ok", true},
		{"$.selfTest[].message", false},
		{"$.summary.selfTest.witnesses", true},
		{"$.summary.selfTest.checksProven", true},
		{"$.summary.selfTest.mismatches", true},
		// An upgrade run adds a section and tags results with their hop.
		{"$.upgrade", false},
		{"$.results[].hop", false},
		{"$.selfTest[].hop", false},
		{"$.upgrade.path", true},
		{"$.upgrade.timeoutSeconds", true},
		{"$.upgrade.apps", true},
		{"$.upgrade.hops", true},
		{"$.upgrade.apps[].binding", true},
		{"$.upgrade.hops[].name", true},
		{"$.upgrade.hops[].checks", true},
		{"$.upgrade.hops[].error", false},
		{"$.upgrade.hops[].apps[].manifestsBefore", true},
		{"$.upgrade.hops[].apps[].manifestsAfter", false},
		{"$.upgrade.hops[].apps[].expectedDifferences", false},
		{"$.upgrade.hops[].checks[].id", true},
		{"$.upgrade.hops[].checks[].state", true},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			_, parent := schemaAt(t, root, tt.path)
			name := tt.path[strings.LastIndex(tt.path, ".")+1:]
			if got := slices.Contains(asSlice(parent["required"]), any(name)); got != tt.required {
				t.Errorf("required = %v, want %v", got, tt.required)
			}
		})
	}
	if node, _ := schemaAt(t, root, "$.environment.notes"); resolve(t, root, node["items"].(map[string]any), "notes")["type"] != "string" {
		t.Error("environment.notes must be an array of strings")
	}
}
