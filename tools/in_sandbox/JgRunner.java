// judgegraph's completion record for Java test programs (see README.md).
public class JgRunner {
    public static void main(String[] args) throws Throwable {
        __JG_MAIN_CLASS__.main(args);
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
}
