package android.os;

import java.util.HashMap;
import java.util.Map;

/** Fake: a map of the few value types the SDK saves. */
public final class Bundle {
    private final Map<String, Object> values = new HashMap<>();

    public boolean containsKey(String key) { return values.containsKey(key); }

    public void putString(String key, String value) { values.put(key, value); }

    public String getString(String key) { return (String) values.get(key); }

    public void putBoolean(String key, boolean value) { values.put(key, value); }

    public boolean getBoolean(String key) { return Boolean.TRUE.equals(values.get(key)); }

    public void putLong(String key, long value) { values.put(key, value); }

    public long getLong(String key) {
        Object value = values.get(key);
        return value == null ? 0 : (Long) value;
    }
}
