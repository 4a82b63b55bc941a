// TestRunner.cs - a small self-checking test runner for the C# binding (no
// NUnit is packaged for mono on Debian). Every public method marked [Test]
// of a class in this assembly runs on a fresh instance; the runner prints one
// line per test and "N passed, M failed" at the end, and exits non-zero on any
// failure.
using System;
using System.Collections.Generic;
using System.Linq;
using System.Reflection;

namespace Pbf.Tests {

/// <summary>Marks a test method.</summary>
[AttributeUsage(AttributeTargets.Method)]
public sealed class TestAttribute : Attribute {}

/// <summary>A failed expectation.</summary>
public sealed class TestFailure : Exception {
  /// <summary>A failure with its explanation.</summary>
  public TestFailure(string message) : base(message) {}
}

/// <summary>Expectations that throw <see cref="TestFailure"/>.</summary>
public static class Expect {
  /// <summary>Fails unless <paramref name="condition"/> holds.</summary>
  public static void True(bool condition, string what) {
    if (!condition) throw new TestFailure(what);
  }

  /// <summary>Fails unless the two values are equal.</summary>
  public static void Equal<T>(T expected, T actual, string what) {
    if (!EqualityComparer<T>.Default.Equals(expected, actual))
      throw new TestFailure(what + ": expected <" + expected + ">, got <" + actual + ">");
  }

  /// <summary>Runs <paramref name="body"/> and returns the exception of type <typeparamref name="T"/> it throws.</summary>
  public static T Throws<T>(Action body, string what) where T : Exception {
    try {
      body();
    } catch (T e) {
      return e;
    } catch (Exception e) {
      throw new TestFailure(what + ": expected " + typeof(T).Name + ", got " + e.GetType().Name + ": " + e.Message);
    }
    throw new TestFailure(what + ": expected " + typeof(T).Name + ", nothing was thrown");
  }

  /// <summary>Expects a <see cref="PbfException"/> with this status whose message starts with <paramref name="prefix"/>.</summary>
  public static PbfException Status(Pbf.Status status, string prefix, Action body) {
    PbfException e = Throws<PbfException>(body, prefix);
    Equal(status, e.Status, "status of \"" + e.Message + "\"");
    True(e.Message.StartsWith(prefix, StringComparison.Ordinal),
         "message \"" + e.Message + "\" should start with \"" + prefix + "\"");
    return e;
  }
}

/// <summary>Finds and runs the tests.</summary>
public static class TestRunner {
  /// <summary>Runs every test, or those whose name contains args[1]; args[0] is the reference folder.</summary>
  public static int Main(string[] args) {
    if (args.Length < 1) {
      Console.Error.WriteLine("usage: mono PbfTests.exe <reference-dir> [name-filter]");
      return 2;
    }
    BindingTests.ReferenceDir = args[0];
    string filter = args.Length > 1 ? args[1] : "";
    int passed = 0, failed = 0;
    IEnumerable<Type> fixtures = Assembly.GetExecutingAssembly().GetTypes().Where(t => t.IsClass && !t.IsAbstract);
    foreach (Type fixture in fixtures.OrderBy(t => t.Name)) {
      foreach (MethodInfo test in fixture.GetMethods().Where(m => m.IsDefined(typeof(TestAttribute), false))
                                        .OrderBy(m => m.MetadataToken)) {
        string name = fixture.Name + "." + test.Name;
        if (name.IndexOf(filter, StringComparison.Ordinal) < 0) continue;
        try {
          test.Invoke(Activator.CreateInstance(fixture), null);
          Console.WriteLine("ok     " + name);
          ++passed;
        } catch (TargetInvocationException e) {
          Exception cause = e.InnerException;
          Console.WriteLine("FAILED " + name + ": " + (cause is TestFailure ? cause.Message : cause.ToString()));
          ++failed;
        }
      }
    }
    Console.WriteLine(passed + " passed, " + failed + " failed");
    return failed == 0 && passed > 0 ? 0 : 1;
  }
}

}  // namespace Pbf.Tests
