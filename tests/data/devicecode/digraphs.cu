// <% and %> are { and }: the namespace holds main.
namespace hidden <%
int main() <% return 0; %>
%>
extern "C" __global__ void k(int *y) { *y = 1; }
