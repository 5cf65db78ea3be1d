// test_cxx.cpp -- the header compiles as C++ and the library links from it.
#include <waterfall.h>

#include <cstdio>
#include <string>
#include <thread>
#include <unistd.h>
#include <cstdlib>

int main()
{
    std::string path = std::string(std::getenv("TMPDIR") ? std::getenv("TMPDIR") : "/tmp") +
                       "/cxx-" + std::to_string(::getpid()) + ".wft";
    if (wf_open(path.c_str()) != 0)
        return 1;
    wf_unit u = wf_unit_new("cxx-job", 1);
    wf_mark(WF_SYNTH_START, u);
    std::thread gpu([u] {
        wf_thread_worker(0, 0);
        wf_mark(WF_GPU_START, u);
        wf_mark(WF_GPU_END, u);
    });
    gpu.join();
    if (wf_close() != 0)
        return 1;
    wf_stats st;
    wf_get_stats(&st);
    std::remove(path.c_str());
    std::printf("cxx: marked %llu recorded %llu\n", (unsigned long long)st.marked,
                (unsigned long long)st.recorded);
    return st.marked == 3 && st.recorded == 3 ? 0 : 1;
}
