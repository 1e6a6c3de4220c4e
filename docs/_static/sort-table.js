// Sorts a table.sortable by the column whose header is clicked: numbers as numbers,
// text as text; a second click reverses the order.
document.addEventListener("DOMContentLoaded", () => {
  for (const table of document.querySelectorAll("table.sortable")) {
    const headers = table.querySelectorAll("thead th");
    headers.forEach((th, column) => {
      th.tabIndex = 0;
      const sort = () => {
        const ascending = th.getAttribute("aria-sort") !== "ascending";
        headers.forEach((h) => h.removeAttribute("aria-sort"));
        th.setAttribute("aria-sort", ascending ? "ascending" : "descending");
        const body = table.tBodies[0];
        const key = (row) => row.cells[column].dataset.sort ?? row.cells[column].textContent.trim();
        const rows = Array.from(body.rows);
        rows.sort((a, b) => {
          const order = key(a).localeCompare(key(b), undefined, {numeric: true});
          return ascending ? order : -order;
        });
        body.append(...rows);
      };
      th.addEventListener("click", sort);
      th.addEventListener("keydown", (event) => {
        if (event.key === "Enter" || event.key === " ") { event.preventDefault(); sort(); }
      });
    });
  }
});
