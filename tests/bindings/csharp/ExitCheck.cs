// ExitCheck.cs - a process that uses the binding and must exit with code 0.
//
// mono unloads libpbf at exit; had oneTBB's worker threads outlived the last
// solver, the process would die with SIGSEGV after Main returned (it did, in
// about one run out of fifty, before the library stopped its workers). ctest
// runs each mode many times (run_repeatedly.cmake) and checks the exit code.
//
//   mono ExitCheck.exe dispose    solvers disposed on the thread that stepped them;
//                                 on Linux, the process has no more threads of its own
//                                 name (oneTBB's workers inherit it) than before
//   mono ExitCheck.exe finalize   a solver never disposed: mono's finalizer frees it at exit
//   mono ExitCheck.exe thread     a solver stepped on a thread that has ended, disposed on Main
using System;
using System.IO;
using System.Threading;
using Pbf;

static class ExitCheck {
  static Solver Run() {
    var solver = new Solver(new SolverDesc { ParticleSpacing = 0.05f, MaxParticles = 10000 });
    solver.FillBox(new[] { 0f, 0f, 0f }, new[] { 0.5f, 0.5f, 0.5f });
    solver.Step(1f / 60f, 2);
    return solver;
  }

  /// <summary>The name of every thread of this process (Linux: /proc/self/task/*/comm); empty elsewhere.</summary>
  static string[] ThreadNames() {
    if (!Directory.Exists("/proc/self/task")) return new string[0];
    var names = new System.Collections.Generic.List<string>();
    foreach (string task in Directory.GetDirectories("/proc/self/task")) {
      try {
        names.Add(File.ReadAllText(Path.Combine(task, "comm")).Trim());
      } catch (IOException) {
        // the thread ended while we looked
      }
    }
    return names.ToArray();
  }

  /// <summary>
  /// The threads that carry the process's own name, or -1 where /proc/self/task does not exist. oneTBB's
  /// workers inherit that name; mono names its own threads ("SGen worker", "Finalizer", "Thread Pool
  /// Worker", ...), which it may start at any time and which are not the library's.
  /// </summary>
  static int Threads() {
    if (!Directory.Exists("/proc/self/task")) return -1;
    string self = File.ReadAllText("/proc/self/comm").Trim();
    int count = 0;
    foreach (string name in ThreadNames())
      if (name == self) ++count;
    return count;
  }

  static int Main(string[] args) {
    string mode = args.Length > 0 ? args[0] : "dispose";
    Console.WriteLine("pbf " + Library.VersionString);  // loads libpbf before the baseline is taken
    switch (mode) {
      case "dispose": {
        int before = Threads();
        Solver a = Run(), b = Run(), c = Run();
        a.Dispose();
        c.Dispose();
        b.Dispose();
        int after = Threads();
        // mono starts threads of its own at any time (its garbage collector's workers, say), and one it has
        // just started carries the process's name until mono names it: one such thread was counted in about
        // one run in thirty on a busy machine, and named "SGen worker" by the time the message listed the
        // threads. So look again for up to 2 s before calling an extra thread the library's: a worker that
        // the library left running keeps the process's name and stays.
        for (int k = 0; k < 40 && after != before; ++k) {
          Thread.Sleep(50);
          after = Threads();
        }
        if (after != before) {
          Console.Error.WriteLine("ExitCheck: " + after + " threads after the last solver was disposed, " + before +
                                  " before the first: the library left worker threads running (threads now: " +
                                  string.Join(", ", ThreadNames()) + ")");
          return 1;
        }
        break;
      }
      case "finalize":
        Run();
        break;
      case "thread": {
        Solver solver = null;
        var t = new Thread(() => { solver = Run(); });
        t.Start();
        t.Join();
        solver.Step(1f / 60f);
        solver.Dispose();
        break;
      }
      default:
        Console.Error.WriteLine("usage: mono ExitCheck.exe dispose|finalize|thread");
        return 2;
    }
    Console.WriteLine("ExitCheck " + mode + ": returning 0 from Main");
    return 0;
  }
}
