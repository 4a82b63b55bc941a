// ExitCheck.java - a JVM that uses the binding and must exit with code 0.
// ctest runs each mode several times (run_repeatedly.cmake).
//
//   pbf.ExitCheck close     solvers closed on the thread that stepped them
//   pbf.ExitCheck cleaner   a solver never closed; the cleaner or the exit frees it
//   pbf.ExitCheck thread    a solver stepped on a thread that has ended, closed on main
package pbf;

/** Runs solvers and returns from main; the process must then exit with code 0. */
public final class ExitCheck {
  private ExitCheck() {}

  private static Solver run() {
    Solver solver = new Solver(new SolverDesc().setParticleSpacing(0.05f).setMaxParticles(10000));
    solver.fillBox(new float[] {0, 0, 0}, new float[] {0.5f, 0.5f, 0.5f});
    solver.step(1f / 60f, 2);
    return solver;
  }

  /**
   * @param args the mode: close, cleaner or thread
   * @throws InterruptedException never
   */
  public static void main(String[] args) throws InterruptedException {
    String mode = args.length > 0 ? args[0] : "close";
    switch (mode) {
      case "close":
        try (Solver a = run(); Solver b = run()) {
          a.step(0.01f);
          b.step(0.01f);
        }
        break;
      case "cleaner":
        run();
        System.gc();
        break;
      case "thread": {
        Solver[] solver = new Solver[1];
        Thread t = new Thread(() -> solver[0] = run());
        t.start();
        t.join();
        solver[0].step(0.01f);
        solver[0].close();
        break;
      }
      default:
        System.err.println("usage: pbf.ExitCheck close|cleaner|thread");
        System.exit(2);
    }
    System.out.println("ExitCheck " + mode + ": returning from main");
  }
}
