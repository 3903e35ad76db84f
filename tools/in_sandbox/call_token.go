func __JG_KEY___token() string {
	masked := []byte{__JG_MASKED__}
	mask := []byte{__JG_MASK__}
	for i := range mask {
		masked[i] ^= mask[i]
	}
	return string(masked)
}