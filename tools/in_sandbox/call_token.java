    static String __JG_KEY___token() {
        int[] masked = {__JG_MASKED__};
        int[] mask = {__JG_MASK__};
        StringBuilder token = new StringBuilder();
        for (int i = 0; i < mask.length; i++) token.append((char) (masked[i] ^ mask[i]));
        return token.toString();
    }