package android.content;
public class Intent {
    public Intent(Context packageContext, Class<?> cls) {}
    public String getAction() { return null; }
    public String getStringExtra(String name) { return null; }
    public Intent putExtra(String name, String value) { return this; }
}
