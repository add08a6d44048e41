package android.content;
public abstract class BroadcastReceiver {
    public static class PendingResult { public final void finish() {} }
    public abstract void onReceive(Context context, Intent intent);
    public final PendingResult goAsync() { return null; }
}
