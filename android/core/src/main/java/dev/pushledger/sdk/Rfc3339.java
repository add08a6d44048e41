package dev.pushledger.sdk;

import org.jetbrains.annotations.NotNull;
import org.jetbrains.annotations.Nullable;

/**
 * RFC 3339 times exactly as the server accepts them ({@code YYYY-MM-DDTHH:MM:SS[.fraction](Z|±hh:mm)},
 * {@code T}/{@code Z} in either case, fractions kept to the microsecond, a leap second rolling
 * into the next minute), as microseconds since 1970. java.time is API 26+ on Android, so the
 * civil-date arithmetic is done here.
 */
final class Rfc3339 {
    private Rfc3339() {}

    /** {@code 2026-11-30T10:00:05.120000Z}: UTC, always six fraction digits. */
    static @NotNull String format(long micros) {
        long days = floorDiv(micros, 86_400_000_000L);
        long rest = micros - days * 86_400_000_000L;
        long[] ymd = civil(days);
        long seconds = rest / 1_000_000;
        return pad(ymd[0], 4) + "-" + pad(ymd[1], 2) + "-" + pad(ymd[2], 2) + "T" + pad(seconds / 3600, 2) + ":"
            + pad(seconds / 60 % 60, 2) + ":" + pad(seconds % 60, 2) + "." + pad(rest % 1_000_000, 6) + "Z";
    }

    /** Microseconds since 1970, or null when the text is not RFC 3339. */
    static @Nullable Long parse(@NotNull String s) {
        int n = s.length();
        if (n < 20) return null;
        long year = digits(s, 0, 4), month = digits(s, 5, 2), day = digits(s, 8, 2);
        long hour = digits(s, 11, 2), minute = digits(s, 14, 2), second = digits(s, 17, 2);
        char t = s.charAt(10);
        if (year < 0 || s.charAt(4) != '-' || month < 0 || s.charAt(7) != '-' || day < 0 || (t != 'T' && t != 't')
            || hour < 0 || s.charAt(13) != ':' || minute < 0 || s.charAt(16) != ':' || second < 0) return null;
        if (month < 1 || month > 12 || day < 1 || day > daysIn((int) month, year) || hour >= 24 || minute >= 60 || second > 60) return null;
        int i = 19;
        long micros = 0;
        if (s.charAt(i) == '.') {
            i++;
            int start = i;
            long scale = 100_000;
            while (i < n && s.charAt(i) >= '0' && s.charAt(i) <= '9') {
                micros += (s.charAt(i) - '0') * scale;
                scale /= 10;
                i++;
            }
            if (i == start) return null;
        }
        if (i >= n) return null;
        long offset = 0;
        char z = s.charAt(i);
        if (z == 'Z' || z == 'z') {
            i++;
        } else if (z == '+' || z == '-') {
            if (i + 6 != n) return null;
            long oh = digits(s, i + 1, 2), om = digits(s, i + 4, 2);
            if (oh < 0 || s.charAt(i + 3) != ':' || om < 0 || oh >= 24 || om >= 60) return null;
            offset = (oh * 60 + om) * 60 * (z == '-' ? -1 : 1);
            i += 6;
        } else {
            return null;
        }
        if (i != n) return null;
        long seconds = daysSinceEpoch(year, month, day) * 86_400 + hour * 3600 + minute * 60 + second - offset;
        return seconds * 1_000_000 + micros;
    }

    private static long digits(String s, int at, int count) {
        long v = 0;
        for (int k = at; k < at + count; k++) {
            char c = s.charAt(k);
            if (c < '0' || c > '9') return -1;
            v = v * 10 + (c - '0');
        }
        return v;
    }

    private static int daysIn(int month, long year) {
        switch (month) {
            case 2: return (year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)) ? 29 : 28;
            case 4: case 6: case 9: case 11: return 30;
            default: return 31;
        }
    }

    /** Days from 1970-01-01 (H. Hinnant's days_from_civil). */
    private static long daysSinceEpoch(long y, long m, long d) {
        y -= m <= 2 ? 1 : 0;
        long era = floorDiv(y, 400);
        long yoe = y - era * 400;
        long doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
        long doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
        return era * 146_097 + doe - 719_468;
    }

    /** {year, month, day} of a day count from 1970-01-01 (civil_from_days). */
    private static long[] civil(long days) {
        long z = days + 719_468;
        long era = floorDiv(z, 146_097);
        long doe = z - era * 146_097;
        long yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
        long doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
        long mp = (5 * doy + 2) / 153;
        long d = doy - (153 * mp + 2) / 5 + 1;
        long m = mp < 10 ? mp + 3 : mp - 9;
        return new long[] {yoe + era * 400 + (m <= 2 ? 1 : 0), m, d};
    }

    /** Math.floorDiv is API 24+ on Android. */
    private static long floorDiv(long a, long b) {
        long q = a / b;
        return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
    }

    private static String pad(long v, int width) {
        StringBuilder s = new StringBuilder(Long.toString(v));
        while (s.length() < width) s.insert(0, '0');
        return s.toString();
    }
}
