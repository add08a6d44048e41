#!/usr/bin/env bash
# The Android SDK built and tested with Debian's JDK and jars alone (no Gradle, no Maven):
#   scripts/android.sh build   android/core/build/libs/pushledger-android-core.jar (javac --release 8), and the
#                              adapter compiled against it and the framework fakes (android/adapter/fakes)
#   scripts/android.sh test    both, then one JUnit 5 run: the core's suite against a real `pushledger serve`
#                              (DATABASE_URL names the cluster; without it a throwaway one is started) and the
#                              adapter's suite, the real adapter classes on the fakes at API 21 … 35
# Extra arguments of `test` go to the JUnit console launcher, e.g. --select-class dev.pushledger.sdk.UploadTests
# (Gradle's route to the AAR, on a machine with the Android SDK: docs/integrations/android.md.)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
. "$root/scripts/lib/suite-env.sh"

json=/usr/share/java/com.android.json.jar
annotations=/usr/share/java/org.jetbrains.annotations-java8.jar
console=/usr/share/java/junit-platform-console-standalone.jar
core=android/core
out=$core/build
jar=$out/libs/pushledger-android-core.jar

usage() { sed -n '2,7p' "$0" | sed 's/^# \{0,1\}//'; }

# The SDK's release, from VERSION, for the X-PushLedger-SDK header (android/library/build.gradle writes the same file).
sdk_version() {
    local version
    version=$(tr -d ' \n' <VERSION)
    mkdir -p "$out/generated/dev/pushledger/sdk"
    printf '%s\n' 'package dev.pushledger.sdk;' '' '/** Generated from VERSION by the build. */' \
        'final class SdkVersion {' "    static final String VERSION = \"$version\";" '' \
        '    private SdkVersion() {}' '}' \
        >"$out/generated/dev/pushledger/sdk/SdkVersion.java"
}

build() {
    for f in "$json" "$annotations"; do
        [ -f "$f" ] || { echo "android: $f is missing" \
            "(scripts/deps.sh jdk junit5 libandroid-json-java libjetbrains-annotations-java)" >&2; exit 1; }
    done
    rm -rf "$out/classes" && mkdir -p "$out/classes" "$out/libs"
    sdk_version
    # Java 8 bytecode (class major 52), which D8 accepts at any minSdk; org.json is the platform's on Android.
    # -options: a newer JDK warns that release 8 is old; that is the point here.
    javac --release 8 -Xlint:all,-options -Werror -encoding UTF-8 -d "$out/classes" -cp "$json:$annotations" \
        $(find "$core/src/main/java" "$out/generated" -name '*.java' | sort)
    rm -f "$jar"
    jar cf "$jar" -C "$out/classes" .
    echo "android: built $jar" >&2
    # The adapter against the core and the fakes of the framework classes it touches (android/adapter/fakes/README.md).
    rm -rf "$out/adapter-classes" && mkdir -p "$out/adapter-classes"
    javac --release 8 -Xlint:all,-options -Werror -encoding UTF-8 -d "$out/adapter-classes" -cp "$jar" \
        $(find android/adapter/fakes android/adapter/src/main/java -name '*.java' | sort)
    echo "android: the adapter compiles against the core and the framework fakes" >&2
}

run_tests() {
    [ -f "$console" ] || { echo "android: $console is missing (scripts/deps.sh junit5)" >&2; exit 1; }
    suite_env android
    rm -rf "$out/test-classes" "$out/adapter-test-classes" && mkdir -p "$out/test-classes" "$out/adapter-test-classes"
    javac -Xlint:all,-serial,-try -encoding UTF-8 -d "$out/test-classes" -cp "$jar:$json:$console" \
        $(find "$core/src/test/java" -name '*.java' | sort)
    javac -Xlint:all,-serial,-try -encoding UTF-8 -d "$out/adapter-test-classes" \
        -cp "$out/adapter-classes:$jar:$json:$console" \
        $(find android/adapter/src/test/java -name '*.java' | sort)
    local report=$out/test-report.txt status=0
    # Arguments select tests (e.g. --select-class …); without them every test class of both suites runs.
    [ $# -gt 0 ] || set -- --scan-class-path "$out/test-classes:$out/adapter-test-classes"
    # The suite's own JVM and the probe JVMs it starts read these to find the jar and the newcomer program.
    java -Dpushledger.jar="$root/$jar" -Dpushledger.json="$json" -Dpushledger.newcomer="$root/$core/src/newcomer" \
        -Dpushledger.vectors="$root/docs/contract/vectors" -Dpushledger.fixtures="$root/Tests/Fixtures" \
        -Dpushledger.root="$root" \
        -jar "$console" --class-path "$out/test-classes:$out/adapter-test-classes:$out/adapter-classes:$jar:$json" \
        --disable-banner --disable-ansi-colors --details=summary --fail-if-no-tests "$@" >"$report" 2>&1 || status=$?
    local passed failed
    passed=$(sed -n 's/.*\[ *\([0-9]*\) tests successful.*/\1/p' "$report")
    failed=$(sed -n 's/.*\[ *\([0-9]*\) tests failed.*/\1/p' "$report")
    [ "$status" -eq 0 ] || cat "$report" >&2
    echo "android: ${passed:-0} passed, ${failed:-0} failed"
    return "$status"
}

case "${1:-}" in
    build) build ;;
    test) shift; build; run_tests "$@" ;;
    -h|--help|help) usage ;;
    *) usage >&2; exit 2 ;;
esac
