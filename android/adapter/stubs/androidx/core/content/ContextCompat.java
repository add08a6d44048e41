package androidx.core.content;
public class ContextCompat { public static int checkSelfPermission(android.content.Context context, String permission) { return 0; } }
