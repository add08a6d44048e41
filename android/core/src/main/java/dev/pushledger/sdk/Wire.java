package dev.pushledger.sdk;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import org.jetbrains.annotations.NotNull;
import org.jetbrains.annotations.Nullable;

/** The contract's words for the SDK's enums: the constant's name in lower case. */
final class Wire {
    private Wire() {}

    static @NotNull String of(@NotNull Enum<?> value) {
        return value.name().toLowerCase(Locale.ROOT);
    }

    /**
     * The word, or null for null: org.json leaves a null member out, so a null the annotations
     * forbid becomes the contract's {@code missing_field} instead of a crash.
     */
    static @Nullable String orNull(@Nullable Object value) {
        if (value == null) return null;
        return value instanceof Enum ? of((Enum<?>) value) : value.toString();
    }

    /** Every word of an enum, in declaration order (the order the server's messages list them). */
    static <E extends Enum<E>> @NotNull List<String> words(@NotNull Class<E> type) {
        List<String> words = new ArrayList<>();
        for (E value : type.getEnumConstants()) words.add(of(value));
        return words;
    }

    static <E extends Enum<E>> @Nullable E parse(@NotNull Class<E> type, @Nullable String word) {
        if (word == null) return null;
        for (E value : type.getEnumConstants()) {
            if (of(value).equals(word)) return value;
        }
        return null;
    }
}
