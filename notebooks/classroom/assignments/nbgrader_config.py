# nbgrader settings for the evp classroom assignments; run nbgrader from this folder.
c = get_config()  # noqa: F821 (nbgrader defines get_config when it reads this file)

c.CourseDirectory.course_id = "evp-classroom"
# The autograder runs each notebook in a fresh kernel; none takes more than seconds.
c.ExecutePreprocessor.timeout = 120
