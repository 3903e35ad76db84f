// judgegraph's completion record for Java test programs (see README.md).
public class JgRunner {
    /* The built classes, read into memory and their files deleted before any of the answer's code runs: the test's
       class file holds what the test expects (its constants) and this one's the record's token, both readable by
       an answer in the same directory. They are defined from these bytes (`Built`), all of them before any of the
       answer's code runs, and the bytes then dropped: nothing is left to read. */
    static final java.util.Map<String, byte[]> BUILT = new java.util.HashMap<>();

    static final class Built extends ClassLoader {
        Built() {
            super(JgRunner.class.getClassLoader());
        }

        @Override
        protected Class<?> findClass(String name) throws ClassNotFoundException {
            byte[] bytes = BUILT.get(name);
            if (bytes == null) throw new ClassNotFoundException(name);
            return defineClass(name, bytes, 0, bytes.length);
        }
    }

    public static void main(String[] args) throws Throwable {
        java.io.File[] files = new java.io.File(".").listFiles();
        for (java.io.File f : files == null ? new java.io.File[0] : files) {
            String file = f.getName();
            if (file.endsWith(".class") && !file.startsWith("JgRunner")) {
                String name = file.substring(0, file.length() - ".class".length());
                BUILT.put(name, java.nio.file.Files.readAllBytes(f.toPath()));
            }
        }
        for (java.io.File f : files == null ? new java.io.File[0] : files) {
            if (f.getName().endsWith(".class") || f.getName().endsWith(".java")) f.delete();
        }
        ClassLoader built = new Built();
        JgRunner.checkResults(new String[] {__JG_TESTED__}, new String[] {__JG_TEST_CLASSES__}, built);
        // Every class defined now (none initialised), and the bytes dropped: an answer reaches this map by reflection,
        // and the test's class bytes hold what it expects.
        for (String name : new java.util.TreeSet<>(BUILT.keySet())) Class.forName(name, false, built);
        BUILT.clear();
        try {
            built.loadClass("__JG_MAIN_CLASS__").getMethod("main", String[].class).invoke(null, (Object) args);
        } catch (java.lang.reflect.InvocationTargetException e) {
            throw e.getCause();  // the test's own failure, as it would have been thrown
        }
        String fd = System.getenv("JG_RECORD_FD");
        if (fd == null) return;
        int[] masked = {__JG_MASKED__};
        int[] mask = {__JG_MASK__};
        byte[] out = new byte[mask.length];
        for (int i = 0; i < out.length; i++) out[i] = (byte) (masked[i] ^ mask[i]);
        try (java.io.FileOutputStream record = new java.io.FileOutputStream("/proc/self/fd/" + fd)) {
            record.write(out);
        }
    }

    /* Nothing a test compares is the answer's to compare: each method of the answer's classes that the test calls
       returns a plain type (a primitive, a JDK type other than Object with plain type arguments, an array of them,
       or a class of the answer's that declares no equals, hashCode or compareTo), and no class of the answer's that
       such a result could be at run time (a subclass of ArrayList, an implementation of List) declares them: the
       test's `equals` would be the answer's, equal to anything. The classes are loaded, not initialised (no static
       initialiser of the answer's runs here). */
    static void checkResults(String[] tested, String[] testClasses, ClassLoader built) throws Exception {
        java.util.Set<String> names = new java.util.HashSet<>(java.util.Arrays.asList(tested));
        java.util.Set<String> theTests = new java.util.HashSet<>(java.util.Arrays.asList(testClasses));
        java.util.List<Class<?>> answers = new java.util.ArrayList<>();
        for (String name : new java.util.TreeSet<>(BUILT.keySet())) {
            if (theTests.contains(name.split("\\$")[0])) continue;
            answers.add(Class.forName(name, false, built));
        }
        for (Class<?> c : answers) {
            for (java.lang.reflect.Method m : c.getDeclaredMethods()) {
                if (!names.contains(m.getName())) continue;
                if (!plain(m.getGenericReturnType())) refuse(c.getName() + "." + m.getName() + " returns "
                        + m.getGenericReturnType().getTypeName() + ", which compares through the answer's code");
                Class<?> result = m.getReturnType();
                if (result.isPrimitive() || java.lang.reflect.Modifier.isFinal(result.getModifiers())) continue;
                for (Class<?> k : answers) {
                    if (result.isAssignableFrom(k) && comparesItself(k)) refuse(c.getName() + "." + m.getName()
                            + " may return a " + k.getName() + ", whose equals, hashCode or compareTo is the answer's");
                }
            }
        }
    }

    static boolean plain(java.lang.reflect.Type t) {
        if (t instanceof Class) {
            Class<?> c = (Class<?>) t;
            if (c.isPrimitive()) return true;
            if (c.isArray()) return plain(c.getComponentType());
            if (c.getClassLoader() == null) return c != Object.class;
            return !comparesItself(c);
        }
        if (t instanceof java.lang.reflect.ParameterizedType) {
            java.lang.reflect.ParameterizedType p = (java.lang.reflect.ParameterizedType) t;
            if (!plain(p.getRawType())) return false;
            for (java.lang.reflect.Type a : p.getActualTypeArguments()) if (!plain(a)) return false;
            return true;
        }
        if (t instanceof java.lang.reflect.GenericArrayType) {
            return plain(((java.lang.reflect.GenericArrayType) t).getGenericComponentType());
        }
        return false;  // a type variable or a wildcard: what it is, the answer decides
    }

    /* Whether a class of the answer's, or one of its own superclasses, declares equals, hashCode or compareTo. */
    static boolean comparesItself(Class<?> k) {
        for (Class<?> c = k; c != null && c.getClassLoader() != null; c = c.getSuperclass()) {
            for (java.lang.reflect.Method m : c.getDeclaredMethods()) {
                String n = m.getName();
                if ((n.equals("equals") || n.equals("compareTo")) && m.getParameterCount() == 1) return true;
                if (n.equals("hashCode") && m.getParameterCount() == 0) return true;
            }
        }
        return false;
    }

    static void refuse(String why) {
        throw new Error("judgegraph: " + why);
    }
}
