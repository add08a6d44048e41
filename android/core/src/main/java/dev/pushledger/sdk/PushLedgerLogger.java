package dev.pushledger.sdk;

import java.util.Map;

import org.jetbrains.annotations.NotNull;

/**
 * Where the SDK's log lines go (on Android, {@code android.util.Log}). Lines are structured,
 * {@code level=warning msg="…" key=value}, and never hold the key or a full token.
 */
public interface PushLedgerLogger {
    enum Level { DEBUG, INFO, WARNING, ERROR }

    void log(@NotNull Level level, @NotNull String line);

    /** Warnings and errors to stderr. */
    PushLedgerLogger STDERR = (level, line) -> {
        if (level.compareTo(Level.WARNING) >= 0) System.err.println(line);
    };

    /** The structured line for a message and its fields. */
    static @NotNull String line(@NotNull Level level, @NotNull String message, @NotNull Map<String, Object> fields) {
        StringBuilder s = new StringBuilder("level=").append(level.name().toLowerCase(java.util.Locale.ROOT))
            .append(" component=PushLedger msg=\"").append(message.replace("\"", "'")).append('"');
        for (Map.Entry<String, Object> field : fields.entrySet()) {
            String value = String.valueOf(field.getValue());
            boolean plain = value.matches("[A-Za-z0-9_.:/-]+");
            s.append(' ').append(field.getKey()).append('=').append(plain ? value : "\"" + value.replace("\"", "'") + "\"");
        }
        return s.toString();
    }
}
