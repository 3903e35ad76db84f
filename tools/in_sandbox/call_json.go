
func jgConv(v reflect.Value, chars bool) interface{} {
	switch v.Kind() {
	case reflect.Slice, reflect.Array:
		out := make([]interface{}, v.Len())
		for i := range out {
			out[i] = jgConv(v.Index(i), chars)
		}
		return out
	case reflect.Float32, reflect.Float64:
		f := v.Float()
		switch {
		case math.IsNaN(f):
			return "\x00jg:NaN"
		case math.IsInf(f, 1):
			return "\x00jg:Infinity"
		case math.IsInf(f, -1):
			return "\x00jg:-Infinity"
		}
		return f
	case reflect.Uint8:
		if chars {
			return string(rune(v.Uint()))
		}
	case reflect.Int32:
		if chars {
			return string(rune(v.Int()))
		}
	}
	return v.Interface()
}

func jgJSON(v interface{}, chars bool) string {
	if v == nil {
		return "null"
	}
	b, err := json.Marshal(jgConv(reflect.ValueOf(v), chars))
	if err != nil {
		return "null"
	}
	// JSON has no non-finite numbers; Python's reader takes these tokens (as Python answers' reals travel)
	return jgNonFinite.ReplaceAllString(string(b), "$1")
}

var jgNonFinite = regexp.MustCompile(`"\\u0000jg:(NaN|-?Infinity)"`)
