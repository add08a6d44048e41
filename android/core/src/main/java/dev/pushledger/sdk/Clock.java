package dev.pushledger.sdk;

/** The device clock in milliseconds since 1970 (java.util.function is API 24+ on Android). */
public interface Clock {
    long nowMillis();

    Clock SYSTEM = System::currentTimeMillis;
}
