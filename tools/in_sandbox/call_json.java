
    static String jgString(String s) {
        StringBuilder b = new StringBuilder("\"");
        for (char c : s.toCharArray()) {
            if (c == '"' || c == '\\') b.append('\\').append(c);
            else if (c < 0x20) b.append(String.format("\\u%04x", (int) c));
            else b.append(c);
        }
        return b.append('"').toString();
    }
    static String jgJson(Object o) {
        if (o == null) return "null";
        if (o instanceof String) return jgString((String) o);
        if (o instanceof Character) return jgString(String.valueOf(o));
        if (o instanceof Double || o instanceof Float) {
            double d = ((Number) o).doubleValue();
            if (Double.isNaN(d)) return "NaN";
            return Double.isInfinite(d) ? (d > 0 ? "Infinity" : "-Infinity") : Double.toString(d);
        }
        if (o instanceof Number || o instanceof Boolean) return o.toString();
        java.util.List<Object> items = new java.util.ArrayList<>();
        if (o instanceof Iterable) for (Object x : (Iterable<?>) o) items.add(x);
        else if (o.getClass().isArray())
            for (int i = 0; i < java.lang.reflect.Array.getLength(o); i++) items.add(java.lang.reflect.Array.get(o, i));
        else return jgString(o.toString());
        StringBuilder b = new StringBuilder("[");
        for (int i = 0; i < items.size(); i++) b.append(i > 0 ? "," : "").append(jgJson(items.get(i)));
        return b.append(']').toString();
    }
